package txn

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/workload"
)

// maxCData is the length of C_DATA (clause 1.3.1).
const maxCData = 500

// paymentState holds Payment's values, reused by every call.
type paymentState struct {
	wName, wStreet1, wStreet2, wCity, wState, wZip string
	dName, dStreet1, dStreet2, dCity, dState, dZip string

	cFirst, cMiddle, cLast, cStreet1, cStreet2, cCity, cState, cZip, cPhone string
	cSince                                                                  time.Time
	cCredit                                                                 string
	cCreditLim, cDiscount, cBalance                                         float64
	cData, newData, hData                                                   []byte // c_data is read for bad credit only

	warehouseDest, districtDest, customerDest []any
}

func (s *paymentState) init() {
	s.warehouseDest = []any{&s.wName, &s.wStreet1, &s.wStreet2, &s.wCity, &s.wState, &s.wZip}
	s.districtDest = []any{&s.dName, &s.dStreet1, &s.dStreet2, &s.dCity, &s.dState, &s.dZip}
	s.customerDest = []any{&s.cFirst, &s.cMiddle, &s.cLast, &s.cStreet1, &s.cStreet2, &s.cCity, &s.cState, &s.cZip,
		&s.cPhone, &s.cSince, &s.cCredit, &s.cCreditLim, &s.cDiscount, &s.cBalance, &s.cData}
	s.newData = make([]byte, 0, maxCData+64)
	s.hData = make([]byte, 0, 24)
}

// payment is the Payment transaction (clause 2.5): 85% of the payments are to
// the home warehouse's districts, 15% to a customer of another warehouse; 60%
// select the customer by last name.
func (w *Worker) payment(ctx context.Context, c *workload.Counts) error {
	s := &w.pay
	dID := w.rng.Uniform(1, districtsPerWarehouse)
	cWID, cDID := w.home, dID
	if w.cfg.Warehouses > 1 && w.rng.Uniform(1, 100) > 85 {
		cWID = otherWarehouse(w.rng, w.home, int64(w.cfg.Warehouses))
		cDID = w.rng.Uniform(1, districtsPerWarehouse)
	}
	byName := w.rng.Uniform(1, 100) <= 60
	var lastName any
	var cID int64
	if byName {
		lastName = boxedLastNames()[w.lastNameNumber()]
	} else {
		cID = w.customerID()
	}
	amount := float64(w.rng.Uniform(100, 500000)) / 100
	now := any(w.now())
	dArg, cwArg, cdArg, amountArg := any(dID), any(cWID), any(cDID), any(amount)

	if err := w.startTx(ctx, c, true); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.payWarehouseYTD, w.argv(amountArg, w.homeArg)); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "warehouse", w.st.payWarehouse, s.warehouseDest, w.argv(w.homeArg)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.payDistrictYTD, w.argv(amountArg, w.homeArg, dArg)); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "district", w.st.payDistrict, s.districtDest, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	if byName {
		id, found, err := w.customerByName(ctx, c, w.st.payCustomersByName, cwArg, cdArg, lastName)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("no customer named %v in warehouse %d district %d: is the database loaded?", lastName, cWID, cDID)
		}
		cID = id
	}
	cIDArg := any(cID)
	if _, err := w.mustRow(ctx, c, "customer", w.st.payCustomer, s.customerDest, w.argv(cwArg, cdArg, cIDArg)); err != nil {
		return err
	}
	if s.cCredit == "BC" {
		s.newData = appendCData(s.newData[:0], cID, cDID, cWID, dID, w.home, amount, s.cData)
		if _, err := w.exec(ctx, c, w.st.payCustomerUpdateBC, w.argv(amountArg, amountArg, string(s.newData), cwArg, cdArg, cIDArg)); err != nil {
			return err
		}
	} else {
		if _, err := w.exec(ctx, c, w.st.payCustomerUpdate, w.argv(amountArg, amountArg, cwArg, cdArg, cIDArg)); err != nil {
			return err
		}
	}
	s.cBalance -= amount
	s.hData = append(append(append(s.hData[:0], s.wName...), "    "...), s.dName...)
	if _, err := w.exec(ctx, c, w.st.payHistory, w.argv(cIDArg, cdArg, cwArg, dArg, w.homeArg, now, amountArg, string(s.hData))); err != nil {
		return err
	}
	return w.endTx(ctx, c, false)
}

// appendCData appends the new C_DATA of a bad-credit customer (clause
// 2.5.2.2): C_ID, C_D_ID, C_W_ID, D_ID, W_ID and H_AMOUNT in front of the old
// data, cut to 500 characters.
func appendCData(b []byte, cID, cDID, cWID, dID, wID int64, amount float64, old []byte) []byte {
	for _, n := range [...]int64{cID, cDID, cWID, dID, wID} {
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ' ')
	}
	b = strconv.AppendFloat(b, amount, 'f', 2, 64)
	b = append(b, " | "...)
	b = append(b, old...)
	if len(b) > maxCData {
		b = b[:maxCData]
	}
	return b
}
