package fold

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"case", "</PAGE_Content>", "</page_content>"},
		{"fullwidth", "＜／ｐａｇｅ＿ｃｏｎｔｅｎｔ＞", "</page_content>"},
		{"cyrillic look-alikes", "</раgе_соntеnt>", "</page_content>"},
		{"greek look-alikes", "</ΡΑGΕ_CΟΝΤΕΝΤ>", "</page_content>"},
		{"named entities", "&lt;/page_content&gt;", "</page_content>"},
		{"numeric entities", "&#60;/page&#x5F;content&#62;", "</page_content>"},
		{"zero-width", "</pa\u200bge\u200d_con\ufefftent>", "</page_content>"},
		{"combining marks", "p\u0301age", "page"},
		{"accents", "contraseña", "contrasena"},
		{"mathematical letters", "𝐒𝐘𝐒𝐓𝐄𝐌", "system"},
		{"spaces", "a\u00a0b\u3000c\td", "a b c d"},
		{"angle look-alikes", "‹/page_content›", "</page_content>"},
		{"an ampersand alone", "Tom & Jerry;", "tom & jerry;"},
		{"unknown entity", "&nosuch;", "&nosuch;"},
		{"other scripts stay", "密码 पासवर्ड", "密码 पासवरड"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSourceMapsBack(t *testing.T) {
	in := "x&lt;/ｐage\u200b>y"
	f := Fold(in)
	if got, want := f.String(), "x</page>y"; got != want {
		t.Fatalf("folded %q, want %q", got, want)
	}
	start, end := f.Source(1, 8)
	if got, want := in[start:end], "&lt;/ｐage\u200b>"; got != want {
		t.Errorf("source of the tag = %q, want %q", got, want)
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"</PAGE_CONTENT >", "&#60;x&gt;", "ｐ\u200b", "\xff&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft := Fold(s)
		if len(ft.Runes) != len(ft.Start) || len(ft.Start) != len(ft.End) {
			t.Fatalf("runes %d, starts %d, ends %d: want equal", len(ft.Runes), len(ft.Start), len(ft.End))
		}
		prev := 0
		for i := range ft.Runes {
			if ft.Start[i] < prev || ft.End[i] <= ft.Start[i] || ft.End[i] > len(s) {
				t.Fatalf("rune %d maps to [%d,%d) after %d in %d bytes", i, ft.Start[i], ft.End[i], prev, len(s))
			}
			prev = ft.Start[i]
		}
	})
}
