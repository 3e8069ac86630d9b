package gate

import (
	"regexp"
	"strings"
)

// verdict is the judgement of one label.
type verdict struct {
	risky bool
	// amount is the amount the label names, if any ("€49").
	amount string
	// proceed says the label is only a generic progress verb ("Continue", "OK", "下一步"), which
	// commits on a page that shows a total.
	proceed bool
}

// judge reads a label from the roles of its words (lexicon.go): a verb that pays; a command to
// order, book or subscribe; a verb that finishes an object of commerce ("Confirm your order");
// a verb that moves money or a paid plan ("Send $250", "Go Premium"); or an object of commerce
// with an amount ("Donation: $50"). Counter-evidence (help, FAQ, history, methods, articles,
// "attention") makes the label about payments rather than one; a possessive does too, unless
// the label starts with a verb ("Your orders" is a list, "Pay your bill" a payment).
func (r *Rules) judge(s string) verdict { return r.judgeAs(s, false) }

// judgeAs judges a label, or a name a developer gave (identifier), whose first word is no command:
// "orderBy" sorts.
func (r *Rules) judgeAs(s string, identifier bool) verdict {
	f := Normalize(s)
	amount, hasAmount := findAmount(f)
	v := verdict{amount: amount}
	hits := r.labels.find(f)
	var roles, first role
	lead := leadingWord(f, hits)
	for _, h := range hits {
		roles |= h.roles
		if h.first || h.start == lead {
			first |= h.roles
		}
	}
	if identifier || reference.MatchString(f) {
		// "Order #1042" names an order; it does not place one.
		first &^= rImperative
	}
	if roles&rCustom != 0 {
		v.risky = true
		return v
	}
	if roles&rCounter != 0 {
		return v
	}
	v.proceed = roles&rProceed != 0 && covered(f, hits, rProceed)
	if roles&rMine != 0 && first&(rPay|rImperative|rFinal|rMove) == 0 {
		return v
	}
	money := hasAmount || roles&rMoney != 0
	v.risky = roles&rPay != 0 ||
		first&rImperative != 0 ||
		roles&rImperative != 0 && money ||
		apart(hits, rFinal, rObject) ||
		roles&rMove != 0 && (hasAmount || apart(hits, rMove, rMoney)) ||
		roles&rObject != 0 && hasAmount ||
		priced(f, hits, amount)
	return v
}

// reference is a number that names a record: "#1042", "No. 7", "№ 12".
var reference = regexp.MustCompile(`(?:#|№|\bno\.|\bnr\.)\s?\p{Nd}`)

// leadingWord returns where the word after a leading "now" or "please" starts, or -1: that word
// starts the command ("Jetzt buchen").
func leadingWord(s string, hits []hit) int {
	toks := tokenize(s)
	for i, t := range toks {
		led := false
		for _, h := range hits {
			if h.roles&rLead != 0 && h.start == t.start {
				led = true
				break
			}
		}
		if !led {
			if i == 0 {
				return -1
			}
			return t.start
		}
	}
	return -1
}

// priced reports whether the amount is the price of what the label does: a word such as "for"
// or "für" stands right before it.
func priced(s string, hits []hit, amount string) bool {
	if amount == "" {
		return false
	}
	at := strings.Index(s, amount)
	for _, h := range hits {
		if h.roles&rFor != 0 && h.end <= at && strings.TrimSpace(s[h.end:at]) == "" {
			return true
		}
	}
	return false
}

// apart reports whether two different words of hits play roles a and b.
func apart(hits []hit, a, b role) bool {
	for _, x := range hits {
		if x.roles&a == 0 {
			continue
		}
		for _, y := range hits {
			if y.roles&b != 0 && (y.end <= x.start || x.end <= y.start) {
				return true
			}
		}
	}
	return false
}

// covered reports whether every word of normalized text s lies in a hit playing role r.
func covered(s string, hits []hit, r role) bool {
	toks := tokenize(s)
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		in := false
		for _, h := range hits {
			if h.roles&r != 0 && h.start <= t.start && t.end <= h.end {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}
