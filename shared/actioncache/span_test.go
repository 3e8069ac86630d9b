package actioncache

import "testing"

func TestSpanOfFindsAValueTheTaskGivesOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, task, value string
		want              bool
	}{
		{"a word at the end, before a full stop", "Sign in with the password Hunter2.", "Hunter2", true},
		{"quoted, across spaces the task doubles", "Type  “open sesame”  as the code", "open sesame", true},
		{"given twice: which one is unknown", "Use pin 1234, then confirm 1234", "1234", false},
		{"only inside a longer word", "Sign in as adam", "ada", false},
		{"another case than the task's", "Sign in with the password Hunter2", "hunter2", false},
		{"absent", "Sign in", "s3cret", false},
		{"empty", "Sign in", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			span, ok := spanOf(tc.task, tc.value)
			if ok != tc.want {
				t.Fatalf("spanOf(%q, %q) found = %v, want %v", tc.task, tc.value, ok, tc.want)
			}
			if got, _ := span.in(tc.task); ok && got != tc.value {
				t.Errorf("the span reads %q, want %q", got, tc.value)
			}
		})
	}
}

func TestASpanReadsTheSameWordsOfAnotherTaskOfTheSameKey(t *testing.T) {
	t.Parallel()
	learned, repeat := "Log in as ada with the password Hunter2!", "log in as  ADA with the password HUNTER2"
	if TaskKey(learned) != TaskKey(repeat) {
		t.Fatalf("keys differ: %q, %q", TaskKey(learned), TaskKey(repeat))
	}
	span, ok := spanOf(learned, "Hunter2")
	if !ok {
		t.Fatal("the value is not found in the task")
	}
	if got, _ := span.in(repeat); got != "HUNTER2" {
		t.Errorf("the span reads %q in the repeat's task, want HUNTER2", got)
	}
}

func FuzzSpanOf(f *testing.F) {
	f.Add("Sign in with the password Hunter2.", "Hunter2")
	f.Add("Type “x” then «y»", "x")
	f.Add("ünïcödé wörds 123", "wörds")
	f.Fuzz(func(t *testing.T, task, value string) {
		span, ok := spanOf(task, value)
		if !ok {
			return
		}
		if got, read := span.in(task); !read || got != value {
			t.Errorf("spanOf(%q, %q) = %+v, which reads %q (%v)", task, value, span, got, read)
		}
	})
}
