package cost

// AddEqualCompute adds the equal-compute scenario of the priced systems
// (Sheet.EqualCompute, under the pricing's options) to p.Report.
func (p *Pricing) AddEqualCompute() error {
	eq, err := p.Sheet.EqualCompute(p.Inputs, p.Options)
	if err != nil {
		return err
	}
	p.Report.Evaluations = append(p.Report.Evaluations, eq)
	return nil
}

// AddEqualCost adds the equal-cost scenario of the priced systems for a
// budget per basis per (Sheet.EqualCost; allowOver as in EqualCostOptions)
// to p.Report; the priced row, its metric, center and baseline are the
// pricing's.
func (p *Pricing) AddEqualCost(budget float64, per Basis, allowOver float64) error {
	o := p.Options
	ec, err := p.Sheet.EqualCost(p.Inputs, EqualCostOptions{Budget: budget, Per: per, AllowOver: allowOver,
		Workload: o.Workload, Mixed: o.Mixed, Outages: o.Outages, Metric: o.Metric, Center: o.Center, Baseline: o.Baseline})
	if err != nil {
		return err
	}
	p.Report.EqualCosts = append(p.Report.EqualCosts, ec)
	return nil
}
