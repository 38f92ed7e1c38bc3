package usl

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"
)

// Scale is the scale the residuals are measured on.
type Scale int

const (
	// Log fits log X: the rounds' noise is multiplicative (a busier point
	// scatters more in absolute terms), so every point weighs by its relative
	// error, as the rest of fairbench's statistics do (docs/statistics.md).
	// fairbench's default.
	Log Scale = iota
	// Linear fits X itself, as codahale/usl and smoeding/usl do: unweighted
	// least squares, which lets the busiest points dominate.
	Linear
)

// String names the scale.
func (s Scale) String() string {
	if s == Linear {
		return "linear"
	}
	return "log"
}

// Observation is one measured round: throughput X at N units (threads,
// CPUs).
type Observation struct {
	N float64
	X float64
}

// Options choose how Fit fits.
type Options struct {
	// Scale is the scale of the residuals (zero value: Log).
	Scale Scale
	// Confidence is the level of the intervals (0 = 0.95).
	Confidence float64
	// OneRound accepts points of a single round, as published data sets
	// (one figure per N) come; fairbench's own sweeps never set it, since
	// without repeated rounds the model's misfit passes for noise.
	OneRound bool
}

// Param is a fitted parameter with its interval.
type Param struct {
	// Value is the estimate; SE its standard error (for λ on the log scale,
	// the standard error of ln λ).
	Value float64 `json:"value"`
	SE    float64 `json:"se"`
	// Lo and Hi bound the interval, cut at the parameter's range (σ, κ ≥ 0;
	// λ > 0); Cut says the Wald interval reached below zero and was cut.
	Lo  float64 `json:"lo"`
	Hi  float64 `json:"hi"`
	Cut bool    `json:"cut,omitempty"`
	// Told is true when the interval excludes zero: the term is there. A
	// term that is not told may still be zero; its Hi is what the rounds
	// allow at most.
	Told bool `json:"told"`
}

// Estimate is a positive quantity derived from the parameters, with its
// delta-method interval on the log scale; LogSE is the standard error of its
// logarithm.
type Estimate struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	LogSE float64 `json:"log_se"`
}

// Point is one distinct N of the sweep against the model.
type Point struct {
	N float64 `json:"n"`
	// Rounds is the number of rounds at N; Mean their arithmetic mean.
	Rounds int     `json:"rounds"`
	Mean   float64 `json:"mean"`
	// Fitted is the model's X(N); Residual is Mean ÷ Fitted − 1.
	Fitted   float64 `json:"fitted"`
	Residual float64 `json:"residual"`
}

// Model is a fitted Universal Scalability Law.
type Model struct {
	// Sigma (σ) is contention, Kappa (κ) coherency, Lambda (λ) the
	// throughput of one unit.
	Sigma, Kappa, Lambda Param
	// Peak is N* = √((1−σ)/κ) and PeakX the model's X(N*); both nil unless
	// κ is told (without coherency the model has no peak). PeakBeyond says
	// N* lies past the largest N measured: an extrapolation.
	Peak, PeakX *Estimate
	PeakBeyond  bool
	// Ceiling is λ/σ, the throughput a contention-limited system approaches
	// (nil unless σ is told and κ is not); Near is the N past which the model
	// is within 5 % of it.
	Ceiling *Estimate
	Near    float64
	// R2 is the share of the rounds' variance the model explains, on Scale.
	R2 float64
	// Observations counts the rounds fitted, DF the residual degrees of
	// freedom (Observations − 3); RSE is the residual standard error on
	// Scale.
	Observations, DF int
	RSE              float64
	// LackOfFitP is the p-value of the lack-of-fit F test (the points'
	// departure from the curve against the rounds' own scatter, on Scale);
	// NaN when the rounds have no scatter. MaxResidual is the largest
	// |mean ÷ model − 1| of the points.
	LackOfFitP  float64
	MaxResidual float64
	// Rough says why the curve summarises the points only roughly, "" when
	// it does not: the points depart from it beyond their rounds' scatter (the
	// test below MisfitAlpha) by MisfitResidual or more, or the rounds scatter
	// so widely that the model explains less than MinMisfitR2 of their
	// variance. Misfit is Rough != "".
	Rough  string
	Misfit bool
	// Points are the sweep's distinct N, ascending.
	Points []Point
	// MinN and MaxN are the sweep's range: the model describes it and is an
	// extrapolation beyond.
	MinN, MaxN float64
	Scale      Scale
	Confidence float64
}

// X is the model's throughput at n.
func (m *Model) X(n float64) float64 {
	return m.Lambda.Value * n / denominator(m.Sigma.Value, m.Kappa.Value, n)
}

// Linear is the ideal λN.
func (m *Model) Linear(n float64) float64 { return m.Lambda.Value * n }

// NoModel is the reason a sweep gets no model: Fit's error when the data
// cannot carry one. Reason is a sentence fragment ("3 distinct thread counts;
// a model needs at least 6").
type NoModel struct {
	Reason string
}

func (e *NoModel) Error() string { return "no scalability model: " + e.Reason }

// The near-ceiling share of Model.Near.
const nearShare = 0.95

// Fit fits X(N) = λN / (1 + σ(N−1) + κN(N−1)) to every round by least
// squares with σ, κ ≥ 0 and λ > 0, with Wald intervals from the fit's
// covariance and Student's t on Observations − 3 degrees of freedom. A sweep
// that cannot carry a model gets a *NoModel error with the reason: fewer than
// MinPoints distinct N, a point with one round, a round of zero, throughput
// that does not grow (highest at the smallest N, or σ not told from 1), a
// peak before the smallest N, a fit whose λ interval is wider than λ or whose
// covariance is singular, points that depart from the curve beyond their
// rounds' scatter while the model explains less than MinMisfitR2 of the
// variance (a lesser misfit is flagged: Model.Rough).
func Fit(obs []Observation, opts Options) (*Model, error) {
	conf := opts.Confidence
	if conf == 0 {
		conf = 0.95
	}
	if conf <= 0 || conf >= 1 || math.IsNaN(conf) {
		return nil, fmt.Errorf("usl: confidence %g: give a level between 0 and 1, such as 0.95", conf)
	}
	pts, err := points(obs, opts.OneRound)
	if err != nil {
		return nil, err
	}
	m := &Model{Scale: opts.Scale, Confidence: conf, Observations: len(obs), DF: len(obs) - 3,
		MinN: pts[0].N, MaxN: pts[len(pts)-1].N}
	best := slices.MaxFunc(pts, func(a, b Point) int { return cmpFloat(a.Mean, b.Mean) })
	if best.N == pts[0].N {
		return nil, &NoModel{Reason: fmt.Sprintf("throughput is highest at the smallest count measured (%s): the sweep starts at or past its peak; measure smaller counts", fmtN(best.N))}
	}
	f := objective{obs: obs, scale: opts.Scale}
	sigma, kappa := f.minimize()
	lambda := f.lambda(sigma, kappa)
	cov, rss, ok := f.covariance(sigma, kappa, lambda)
	if !ok {
		return nil, &NoModel{Reason: "the fit is ill-posed: the rounds cannot tell σ, κ and λ apart"}
	}
	m.RSE = math.Sqrt(rss / float64(m.DF))
	m.R2 = f.r2(rss)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(m.DF)}.Quantile(1 - (1-conf)/2)
	m.Sigma = bounded(sigma, math.Sqrt(cov.At(0, 0)), t)
	m.Kappa = bounded(kappa, math.Sqrt(cov.At(1, 1)), t)
	se := math.Sqrt(cov.At(2, 2))
	if opts.Scale == Log {
		m.Lambda = Param{Value: lambda, SE: se, Lo: lambda * math.Exp(-t*se), Hi: lambda * math.Exp(t*se), Told: true}
	} else {
		m.Lambda = bounded(lambda, se, t)
	}
	m.LackOfFitP = f.lackOfFit(rss, len(pts))
	for i := range pts {
		pts[i].Fitted = m.X(pts[i].N)
		pts[i].Residual = pts[i].Mean/pts[i].Fitted - 1
		m.MaxResidual = max(m.MaxResidual, math.Abs(pts[i].Residual))
	}
	switch {
	case m.LackOfFitP < MisfitAlpha && m.MaxResidual >= MisfitResidual:
		m.Rough = fmt.Sprintf("the points depart from the curve by up to %.0f %%, beyond their rounds' scatter (lack-of-fit p = %.3f)", m.MaxResidual*100, m.LackOfFitP)
	case m.R2 < MinMisfitR2:
		m.Rough = fmt.Sprintf("the rounds scatter so widely that the model explains only %.0f %% of their variance (R² = %.2f)", max(m.R2, 0)*100, m.R2)
	}
	m.Misfit = m.Rough != ""
	if m.LackOfFitP < MisfitAlpha && m.R2 < MinMisfitR2 {
		return nil, &NoModel{Reason: fmt.Sprintf("the points do not follow the model (R² = %.2f; their departure from the curve is beyond the rounds' scatter, lack-of-fit F test p = %.3f): a busy machine or a change of regime within the sweep; see the measured figures", m.R2, m.LackOfFitP)}
	}
	if m.Lambda.Hi-m.Lambda.Lo > m.Lambda.Value || m.Lambda.Cut {
		return nil, &NoModel{Reason: fmt.Sprintf("the fit is too loose: λ's %.0f %% interval (%s to %s) is wider than λ itself", conf*100, fmtX(m.Lambda.Lo), fmtX(m.Lambda.Hi))}
	}
	if m.Sigma.Value+t*m.Sigma.SE >= 1 && !m.Kappa.Told {
		return nil, &NoModel{Reason: "throughput does not grow across the sweep: contention σ cannot be told from 1 (no scaling at all)"}
	}
	m.Points = pts
	// The gradients below are of ln of the derived quantity with respect to
	// (σ, κ, λ-parameter), for the delta method; the λ-parameter is ln λ on
	// the log scale and λ on the linear one.
	dLogLambda := 1.0
	if opts.Scale == Linear {
		dLogLambda = 1 / lambda
	}
	switch {
	case m.Kappa.Told && sigma < 1:
		nStar := math.Sqrt((1 - sigma) / kappa)
		g := []float64{-0.5 / (1 - sigma), -0.5 / kappa, 0}
		m.Peak = logInterval(nStar, g, cov, t)
		d := denominator(sigma, kappa, nStar)
		// X(N*) moves with the parameters as X(N) at fixed N does, since
		// dX/dN is zero at the peak.
		gx := []float64{-(nStar - 1) / d, -nStar * (nStar - 1) / d, dLogLambda}
		m.PeakX = logInterval(m.X(nStar), gx, cov, t)
		m.PeakBeyond = nStar > m.MaxN
		if nStar < m.MinN {
			return nil, &NoModel{Reason: fmt.Sprintf("every point is past the model's peak (N* ≈ %s, below the smallest count measured, %s): measure smaller counts", fmtN(nStar), fmtN(m.MinN))}
		}
	case m.Sigma.Told:
		gc := []float64{-1 / sigma, 0, dLogLambda}
		m.Ceiling = logInterval(lambda/sigma, gc, cov, t)
		m.Near = nearShare / (1 - nearShare) * (1 - sigma) / sigma
	}
	return m, nil
}

// points groups the rounds by N and checks that they can carry a model.
func points(obs []Observation, oneRound bool) ([]Point, error) {
	by := map[float64][]float64{}
	for _, o := range obs {
		if math.IsNaN(o.N) || math.IsInf(o.N, 0) || o.N < 1 {
			return nil, fmt.Errorf("usl: N = %g: give counts of 1 or more", o.N)
		}
		if math.IsNaN(o.X) || math.IsInf(o.X, 0) || o.X < 0 {
			return nil, fmt.Errorf("usl: throughput %g at N = %s: give a figure of 0 or more", o.X, fmtN(o.N))
		}
		if o.X == 0 {
			return nil, &NoModel{Reason: fmt.Sprintf("a round at %s has zero throughput", fmtN(o.N))}
		}
		by[o.N] = append(by[o.N], o.X)
	}
	if len(by) < MinPoints {
		return nil, &NoModel{Reason: fmt.Sprintf("%d distinct counts; a model needs at least %d", len(by), MinPoints)}
	}
	var pts []Point
	var single []string
	for n, xs := range by {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		pts = append(pts, Point{N: n, Rounds: len(xs), Mean: sum / float64(len(xs))})
	}
	slices.SortFunc(pts, func(a, b Point) int { return cmpFloat(a.N, b.N) })
	for _, p := range pts {
		if p.Rounds < 2 {
			single = append(single, fmtN(p.N))
		}
	}
	if len(single) > 0 && !oneRound {
		return nil, &NoModel{Reason: fmt.Sprintf("one round at %s: the model's misfit cannot be told from noise without repeated rounds; run 2 or more", strings.Join(single, ", "))}
	}
	return pts, nil
}

// denominator is 1 + σ(N−1) + κN(N−1).
func denominator(sigma, kappa, n float64) float64 {
	return 1 + sigma*(n-1) + kappa*n*(n-1)
}

// kappaScale keeps the search variable of κ near the magnitude of σ's:
// κ = (k·kappaScale)².
const kappaScale = 0.01

// objective is the residual sum of squares with λ profiled out: for given
// σ and κ the best λ has a closed form, so the search is over σ and κ only.
type objective struct {
	obs   []Observation
	scale Scale
}

// lambda is the best λ for σ and κ.
func (f objective) lambda(sigma, kappa float64) float64 {
	if f.scale == Log {
		s := 0.0
		for _, o := range f.obs {
			s += math.Log(o.X) - math.Log(o.N/denominator(sigma, kappa, o.N))
		}
		return math.Exp(s / float64(len(f.obs)))
	}
	var num, den float64
	for _, o := range f.obs {
		g := o.N / denominator(sigma, kappa, o.N)
		num += o.X * g
		den += g * g
	}
	return num / den
}

// residual is observation o's residual at the parameters.
func (f objective) residual(o Observation, sigma, kappa, lambda float64) float64 {
	d := denominator(sigma, kappa, o.N)
	if f.scale == Log {
		return math.Log(o.X) - math.Log(lambda*o.N/d)
	}
	return o.X - lambda*o.N/d
}

// rss is the residual sum of squares at σ, κ and their best λ, with its
// gradient in σ and κ (λ optimal, so its own derivative drops out).
func (f objective) rss(sigma, kappa float64) (rss, dSigma, dKappa float64) {
	lambda := f.lambda(sigma, kappa)
	for _, o := range f.obs {
		r := f.residual(o, sigma, kappa, lambda)
		d := denominator(sigma, kappa, o.N)
		var ds, dk float64 // ∂r/∂σ, ∂r/∂κ
		if f.scale == Log {
			ds, dk = (o.N-1)/d, o.N*(o.N-1)/d
		} else {
			x := lambda * o.N / (d * d)
			ds, dk = x*(o.N-1), x*o.N*(o.N-1)
		}
		rss += r * r
		dSigma += 2 * r * ds
		dKappa += 2 * r * dk
	}
	return rss, dSigma, dKappa
}

// minimize finds σ, κ ≥ 0 of least rss: the bounds by the substitution
// σ = s², κ = (k·kappaScale)², searched by gonum's BFGS from the best point
// of a coarse grid, and the edges σ = 0 and κ = 0 tried on their own so a
// bound is reached exactly.
func (f objective) minimize() (sigma, kappa float64) {
	type cand struct{ s, k, rss float64 }
	best := cand{rss: math.Inf(1)}
	try := func(s, k float64) {
		if r, _, _ := f.rss(s*s, sq(k*kappaScale)); r < best.rss {
			best = cand{s, k, r}
		}
	}
	for _, s := range []float64{0, 0.03, 0.1, 0.3, 0.6, 0.95} {
		for _, k := range []float64{0, 0.1, 0.3, 1, 3, 10, 30} {
			try(s, k)
		}
	}
	search := func(start []float64, free func(x []float64) (s, k float64), grad func(g []float64, s, k, ds, dk float64)) {
		p := optimize.Problem{
			Func: func(x []float64) float64 {
				s, k := free(x)
				r, _, _ := f.rss(s*s, sq(k*kappaScale))
				return r
			},
			Grad: func(g, x []float64) {
				s, k := free(x)
				_, ds, dk := f.rss(s*s, sq(k*kappaScale))
				grad(g, s, k, ds*2*s, dk*2*k*kappaScale*kappaScale)
			},
		}
		res, err := optimize.Minimize(p, start, &optimize.Settings{GradientThreshold: 1e-12, MajorIterations: 2000}, &optimize.BFGS{})
		if err != nil && res == nil {
			return
		}
		s, k := free(res.X)
		try(math.Abs(s), math.Abs(k))
	}
	both := func(x []float64) (float64, float64) { return x[0], x[1] }
	search([]float64{nonZero(best.s), nonZero(best.k)}, both, func(g []float64, _, _, ds, dk float64) { g[0], g[1] = ds, dk })
	search([]float64{nonZero(best.s)}, func(x []float64) (float64, float64) { return x[0], 0 }, func(g []float64, _, _, ds, _ float64) { g[0] = ds })
	search([]float64{nonZero(best.k)}, func(x []float64) (float64, float64) { return 0, x[0] }, func(g []float64, _, _, _, dk float64) { g[0] = dk })
	// Polish from the best of the three, in case an edge's optimum leads
	// back inside.
	search([]float64{nonZero(best.s), nonZero(best.k)}, both, func(g []float64, _, _, ds, dk float64) { g[0], g[1] = ds, dk })
	sigma, kappa = best.s*best.s, sq(best.k*kappaScale)
	// A term whose share of the denominator stays below 1e-9 over the
	// sweep is the search's rounding of zero.
	if sigma*f.maxN() < 1e-9 {
		sigma = 0
	}
	if kappa*sq(f.maxN()) < 1e-9 {
		kappa = 0
	}
	return sigma, kappa
}

// maxN is the largest N observed.
func (f objective) maxN() float64 {
	m := 1.0
	for _, o := range f.obs {
		m = max(m, o.N)
	}
	return m
}

// covariance is the parameters' covariance s²(JᵀJ)⁻¹ with J the Jacobian
// of the residuals in (σ, κ, λ) — ln λ on the log scale — and the rss; ok is
// false when JᵀJ is singular or the degrees of freedom are none.
func (f objective) covariance(sigma, kappa, lambda float64) (*mat.SymDense, float64, bool) {
	n := len(f.obs)
	j := mat.NewDense(n, 3, nil)
	rss := 0.0
	for i, o := range f.obs {
		r := f.residual(o, sigma, kappa, lambda)
		rss += r * r
		d := denominator(sigma, kappa, o.N)
		if f.scale == Log {
			j.SetRow(i, []float64{(o.N - 1) / d, o.N * (o.N - 1) / d, -1})
		} else {
			x := lambda * o.N / (d * d)
			j.SetRow(i, []float64{x * (o.N - 1), x * o.N * (o.N - 1), -o.N / d})
		}
	}
	if n <= 3 {
		return nil, rss, false
	}
	var jtj mat.SymDense
	jtj.SymOuterK(1, j.T())
	var ch mat.Cholesky
	if !ch.Factorize(&jtj) {
		return nil, rss, false
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, rss, false
	}
	inv.ScaleSym(rss/float64(n-3), &inv)
	for i := 0; i < 3; i++ {
		if v := inv.At(i, i); !(v >= 0) || math.IsInf(v, 0) {
			return nil, rss, false
		}
	}
	return &inv, rss, true
}

// The lack-of-fit rule: a fit whose points depart from the curve beyond the
// rounds' scatter (F test p < MisfitAlpha) by MisfitResidual or more at some
// point is flagged; one whose departure is beyond the scatter while it
// explains less than MinMisfitR2 of the variance is no model.
const (
	MisfitAlpha    = 0.05
	MisfitResidual = 0.05
	MinMisfitR2    = 0.8
)

// lackOfFit is the p-value of the lack-of-fit F test: the residual sum of
// squares split into pure error (rounds about their point's mean, n − k
// degrees of freedom) and lack of fit (the rest, k − 3); NaN without pure
// error.
func (f objective) lackOfFit(rss float64, points int) float64 {
	by := map[float64][]float64{}
	for _, o := range f.obs {
		y := o.X
		if f.scale == Log {
			y = math.Log(y)
		}
		by[o.N] = append(by[o.N], y)
	}
	pe := 0.0
	for _, ys := range by {
		mean := 0.0
		for _, y := range ys {
			mean += y
		}
		mean /= float64(len(ys))
		for _, y := range ys {
			pe += (y - mean) * (y - mean)
		}
	}
	dfPE, dfLOF := float64(len(f.obs)-points), float64(points-3)
	if pe <= 0 || dfPE <= 0 || dfLOF <= 0 {
		return math.NaN()
	}
	fstat := (max(rss-pe, 0) / dfLOF) / (pe / dfPE)
	return distuv.F{D1: dfLOF, D2: dfPE}.Survival(fstat)
}

// r2 is 1 − rss ÷ the total sum of squares on the fit's scale.
func (f objective) r2(rss float64) float64 {
	ys := make([]float64, len(f.obs))
	mean := 0.0
	for i, o := range f.obs {
		ys[i] = o.X
		if f.scale == Log {
			ys[i] = math.Log(o.X)
		}
		mean += ys[i]
	}
	mean /= float64(len(ys))
	tss := 0.0
	for _, y := range ys {
		tss += (y - mean) * (y - mean)
	}
	if tss == 0 {
		return math.NaN()
	}
	return 1 - rss/tss
}

// bounded is a parameter ≥ 0 with its Wald interval value ± t·se, cut at 0.
func bounded(value, se, t float64) Param {
	p := Param{Value: value, SE: se, Lo: value - t*se, Hi: value + t*se}
	if p.Lo <= 0 {
		p.Lo, p.Cut = 0, p.Lo < 0
	} else {
		p.Told = true
	}
	return p
}

// logInterval is the delta-method interval of a positive quantity q on the
// log scale: q ×/÷ exp(t·se), se² = gᵀ Σ g with g the gradient of ln q.
func logInterval(q float64, g []float64, cov *mat.SymDense, t float64) *Estimate {
	v := mat.NewVecDense(3, g)
	se := math.Sqrt(mat.Inner(v, cov, v))
	return &Estimate{Value: q, Lo: q * math.Exp(-t*se), Hi: q * math.Exp(t*se), LogSE: se}
}

func sq(x float64) float64 { return x * x }

// nonZero moves a start off zero, where the squared substitution's gradient
// vanishes.
func nonZero(x float64) float64 {
	if x == 0 {
		return 1e-3
	}
	return x
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fmtN prints a count.
func fmtN(n float64) string {
	if n == math.Trunc(n) && n < 1e9 {
		return fmt.Sprintf("%d", int64(n))
	}
	return fmt.Sprintf("%.1f", n)
}

// fmtX prints a throughput with three significant digits.
func fmtX(x float64) string {
	return fmt.Sprintf("%.3g", x)
}
