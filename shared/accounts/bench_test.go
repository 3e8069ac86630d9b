package accounts

import "testing"

// The login path's costs. VerifyDummy should cost what VerifyPassword does on a current hash:
// that equality is what keeps unknown e-mails from being told apart by timing.

func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := HashPassword(refPassword); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPassword(b *testing.B) {
	for b.Loop() {
		if _, err := VerifyPassword(refCurrent, refPassword); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyDummy(b *testing.B) {
	for b.Loop() {
		VerifyDummy(refPassword)
	}
}

func BenchmarkParseBearer(b *testing.B) {
	header := "Bearer " + sampleToken
	for b.Loop() {
		if _, err := ParseBearer(header); err != nil {
			b.Fatal(err)
		}
	}
}
