package schema

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
)

// Quantities and durations have one spelling per value in a compiled
// spec, so that equal values hash equal: cpu "2" and "2000m" are both "2",
// memory "4096Mi" and "4294967296" are both "4Gi", lifetime "3600s" and
// "60m" are both "1h". The rules, applied to every field whose schema type
// is #CPU, #Quantity or #Duration (see Forms):
//
//   - #CPU: whole cores as an integer ("2"), else millicores ("500m"), as
//     Kubernetes writes them.
//   - #Quantity: the largest unit that divides the value exactly, binary
//     (Ki, Mi, Gi, Ti, Pi, Ei) or decimal (k, M, G, T, P, E): "4Gi",
//     "1536Mi", "2G", "1500"; a fraction of a byte as plain decimals ("0.5").
//     Kubernetes keeps the family the value was written in ("1024" stays
//     "1024"); one spelling per value needs one rule for both.
//   - #Duration: Go's time.Duration String without its zero units: "1h"
//     rather than "1h0m0s", "1h30m", "90s" is "1m30s", "1.5s", "500ms".
//     It is the form Go programs and SDK users read and write, and it
//     parses back with time.ParseDuration.

// Forms maps the schema's scalar definitions to the function that gives a
// value of that type its canonical spelling. A field of one of these types
// (or a list of them) is canonicalized wherever the schema has it.
var Forms = map[string]func(string) (string, error){
	"#CPU":      CanonicalCPU,
	"#Quantity": CanonicalQuantity,
	"#Duration": CanonicalDuration,
}

var quantitySyntax = regexp.MustCompile(`^([0-9]*(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|K|M|G|T|P|E|m)?$`)

var quantityUnits = map[string]*big.Rat{
	"": big.NewRat(1, 1), "m": big.NewRat(1, 1000),
	"k": pow(1000, 1), "K": pow(1000, 1), "M": pow(1000, 2), "G": pow(1000, 3), "T": pow(1000, 4), "P": pow(1000, 5), "E": pow(1000, 6),
	"Ki": pow(1024, 1), "Mi": pow(1024, 2), "Gi": pow(1024, 3), "Ti": pow(1024, 4), "Pi": pow(1024, 5), "Ei": pow(1024, 6),
}

var (
	binarySuffixes  = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	decimalSuffixes = []string{"", "k", "M", "G", "T", "P", "E"}
)

func pow(base, n int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(n), nil))
}

// ParseQuantity reads a Kubernetes quantity ("500m", "2", "1.5Gi", "4G")
// as its exact value.
func ParseQuantity(s string) (*big.Rat, error) {
	m := quantitySyntax.FindStringSubmatch(s)
	if m == nil || m[1] == "" {
		return nil, fmt.Errorf("%q is not a quantity (a number with an optional unit: 500m, 2, 256Mi, 4Gi, 1G)", s)
	}
	n, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return nil, fmt.Errorf("%q is not a quantity", s)
	}
	return n.Mul(n, quantityUnits[m[2]]), nil
}

// CanonicalQuantity is the one spelling of a memory or storage quantity:
// the largest binary or decimal unit that divides it exactly.
func CanonicalQuantity(s string) (string, error) {
	v, err := ParseQuantity(s)
	if err != nil {
		return "", err
	}
	if !v.IsInt() {
		return decimalString(v), nil
	}
	n := v.Num()
	if n.Sign() == 0 {
		return "0", nil
	}
	bm, bk := largestUnit(n, 1024)
	dm, dk := largestUnit(n, 1000)
	// The larger unit wins: 1024^bk against 1000^dk.
	if bk > 0 && (dk == 0 || pow(1024, int64(bk)).Cmp(pow(1000, int64(dk))) > 0) {
		return bm.String() + binarySuffixes[bk], nil
	}
	return dm.String() + decimalSuffixes[dk], nil
}

// CanonicalCPU is the one spelling of a CPU quantity: whole cores as an
// integer, else millicores.
func CanonicalCPU(s string) (string, error) {
	v, err := ParseQuantity(s)
	if err != nil {
		return "", err
	}
	if v.IsInt() {
		return v.Num().String(), nil
	}
	milli := new(big.Rat).Mul(v, big.NewRat(1000, 1))
	if milli.IsInt() {
		return milli.Num().String() + "m", nil
	}
	return decimalString(v), nil
}

// largestUnit divides n by base as often as it divides exactly, up to the
// largest unit (base^6): the quotient and the exponent.
func largestUnit(n *big.Int, base int64) (*big.Int, int) {
	q := new(big.Int).Set(n)
	b := big.NewInt(base)
	k := 0
	for k < 6 {
		d, r := new(big.Int).QuoRem(q, b, new(big.Int))
		if r.Sign() != 0 {
			break
		}
		q, k = d, k+1
	}
	return q, k
}

// decimalString writes v, a finite decimal fraction, exactly and without
// trailing zeros: with as many digits as the largest power of 2 or 5 in
// its denominator.
func decimalString(v *big.Rat) string {
	d := new(big.Int).Set(v.Denom())
	prec := 0
	for _, p := range []int64{2, 5} {
		n, b := 0, big.NewInt(p)
		for {
			q, r := new(big.Int).QuoRem(d, b, new(big.Int))
			if r.Sign() != 0 {
				break
			}
			d, n = q, n+1
		}
		prec = max(prec, n)
	}
	return v.FloatString(prec)
}

// CanonicalDuration is the one spelling of a Go duration: time.Duration's
// String without its zero units ("1h", "1h30m", "1m30.5s", "500ms").
func CanonicalDuration(s string) (string, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if strings.Contains(err.Error(), "invalid duration") {
			return "", fmt.Errorf("%q is not a duration (30s, 5m, 1h30m) or is longer than %dh", s, time.Duration(1<<63-1)/time.Hour)
		}
		return "", err
	}
	if d < 0 {
		return "", fmt.Errorf("%q is negative", s)
	}
	if d < time.Second {
		return d.String(), nil
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec := d % time.Minute; sec > 0 {
		b.WriteString(sec.String())
	}
	return b.String(), nil
}
