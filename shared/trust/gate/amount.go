package gate

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// number is a run of digits of any script, with the group and decimal separators prices use
// (1,299.00; 1.299,00; 1 990; ٤٩٫٩٩; 1'000).
var number = regexp.MustCompile(`\p{Nd}+(?:[.,'\x{066B}\x{066C}\x{00A0}\x{202F} ]\p{Nd}+)*`)

// currencyWords are currency codes and the words and abbreviations that follow or precede an
// amount, folded as Normalize folds them. Symbols need no entry: any currency symbol (Unicode
// category Sc) counts.
var currencyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "rub", "uah", "pln", "sek", "nok", "dkk", "chf", "try", "brl",
		"mxn", "aud", "cad", "nzd", "krw", "ils", "nis", "aed", "sar", "irr", "thb", "vnd", "idr", "myr", "php", "kes",
		"ngn", "egp", "czk", "huf", "ron", "bgn", "zar", "ars", "clp", "cop", "pen", "pkr", "bdt", "lkr", "twd", "hkd",
		"sgd", "qar", "kwd", "tzs", "ugx", "ghs", "dollars", "dollar", "euros", "euro", "pounds", "bucks",
		"zł", "zl", "kr", "kč", "kc", "ft", "lei", "tl", "rp", "rm", "ksh", "tsh", "sh", "грн", "руб", "₽",
		"ريال", "درهم", "دينار", "جنيه", "ر.س", "د.إ", "ج.م", "تومان", "ریال", "روپے", "টাকা", "रुपये", "रु", "रुपए",
		"ரூபாய்", "రూపాయలు", "บาท", "đ", "dong", "đồng", "peso", "pesos", "reais", "real", "lira", "shilingi", "naira",
		"元", "円", "원", "块", "圆", "万円", "万元",
	} {
		m[Normalize(w)] = true
	}
	return m
}()

// findAmount returns the first amount in normalized text s: a number next to a currency symbol,
// code or word, in either order, with at most a space between them ("$49.99", "49,90 €",
// "1 990 ₽", "Rp 100.000", "٤٩٫٩٩ ر.س", "₹४९९", "500元"). A number alone (a count, an order
// number, a year) is not an amount.
func findAmount(s string) (string, bool) {
	for _, loc := range number.FindAllStringIndex(s, -1) {
		start, end := loc[0], loc[1]
		if c, ok := currencyBefore(s[:start]); ok {
			return strings.TrimSpace(s[start-len(c) : end]), true
		}
		if c, ok := currencyAfter(s[end:]); ok {
			return strings.TrimSpace(s[start : end+len(c)]), true
		}
	}
	return "", false
}

// currencyBefore returns the currency (with the space between) that ends s.
func currencyBefore(s string) (string, bool) {
	trimmed := strings.TrimRight(s, " \u00a0\u202f")
	if len(s)-len(trimmed) > 3 {
		return "", false
	}
	r, size := utf8.DecodeLastRuneInString(trimmed)
	if size == 0 {
		return "", false
	}
	if unicode.Is(unicode.Sc, r) {
		// "R$" and "US$" are a symbol with letters before it.
		w := strings.LastIndexFunc(trimmed[:len(trimmed)-size], func(r rune) bool { return !unicode.IsLetter(r) })
		return s[w+1:], true
	}
	i := strings.LastIndexFunc(trimmed, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' && !unicode.Is(unicode.Mc, r) })
	if w := trimmed[i+1:]; currencyWords[strings.Trim(w, ".")] || currencyWords[w] {
		return s[i+1:], true
	}
	if isSpaceless(trimmed) {
		for c := range currencyWords {
			if strings.HasSuffix(trimmed, c) && isSpaceless(c) {
				return s[len(trimmed)-len(c):], true
			}
		}
	}
	return "", false
}

// currencyAfter returns the currency (with the space before) that starts s.
func currencyAfter(s string) (string, bool) {
	trimmed := strings.TrimLeft(s, " \u00a0\u202f")
	pad := len(s) - len(trimmed)
	if pad > 3 {
		return "", false
	}
	r, size := utf8.DecodeRuneInString(trimmed)
	if size == 0 {
		return "", false
	}
	if unicode.Is(unicode.Sc, r) {
		return s[:pad+size], true
	}
	if isSpaceless(string(r)) {
		for c := range currencyWords {
			if strings.HasPrefix(trimmed, c) && isSpaceless(c) {
				return s[:pad+len(c)], true
			}
		}
		return "", false
	}
	i := strings.IndexFunc(trimmed, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' && !unicode.Is(unicode.Mc, r) })
	if i < 0 {
		i = len(trimmed)
	}
	w := trimmed[:i]
	if currencyWords[w] {
		return s[:pad+i], true
	}
	if t := strings.TrimRight(w, "."); currencyWords[t] {
		return s[:pad+len(t)], true
	}
	return "", false
}
