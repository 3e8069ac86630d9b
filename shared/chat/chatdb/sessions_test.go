package chatdb

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/fakeclock"
)

// seedSessions creates, a minute apart, sessions of user ana in tenant ten named by their
// queries, with the given statuses and archive flags, plus sessions of another user and of ana's
// ID in another tenant that no listing of ana in ten may show.
func seedSessions(t *testing.T, s *Store, clk *fakeclock.Clock) map[string]chat.Session {
	t.Helper()
	seeds := []struct {
		query    string
		status   chat.Status
		archived bool
	}{
		{"s1", chat.StatusActive, false},
		{"s2", chat.StatusCompleted, false},
		{"s3", chat.StatusActive, true},
		{"s4", chat.StatusFailed, false},
		{"s5", chat.StatusActive, false},
		{"s6", chat.StatusCompleted, true},
	}
	out := map[string]chat.Session{}
	for _, sd := range seeds {
		clk.Advance(time.Minute)
		sess := create(t, s, "ten", "ana", sd.query)
		var err error
		if sd.status != chat.StatusActive {
			if sess, err = s.SetStatus(t.Context(), "ten", sess.ID, sd.status); err != nil {
				t.Fatalf("SetStatus(%s): %v", sd.query, err)
			}
		}
		if sd.archived {
			if sess, err = s.Archive(t.Context(), "ten", "ana", sess.ID); err != nil {
				t.Fatalf("Archive(%s): %v", sd.query, err)
			}
		}
		out[sd.query] = sess
	}
	clk.Advance(time.Minute)
	create(t, s, "ten", "bob", "bob's")
	create(t, s, "other", "ana", "other tenant's")
	return out
}

func titles(sessions []chat.Session) []string {
	out := make([]string, len(sessions))
	for i, s := range sessions {
		out[i] = s.Title
	}
	return out
}

func TestListSessions(t *testing.T) {
	s, clk, _ := newStore(t)
	seeded := seedSessions(t, s, clk)
	tests := []struct {
		name          string
		filter        chat.ListFilter
		limit, offset int
		want          []string
		total         int
		hasMore       bool
	}{
		{"every unarchived", chat.ListFilter{}, 10, 0, []string{"s5", "s4", "s2", "s1"}, 4, false},
		{"active unarchived", chat.ListFilter{Status: chat.StatusActive}, 10, 0, []string{"s5", "s1"}, 2, false},
		{"active with archived", chat.ListFilter{Status: chat.StatusActive, Archived: chat.IncludeArchived}, 10, 0, []string{"s5", "s3", "s1"}, 3, false},
		{"completed only archived", chat.ListFilter{Status: chat.StatusCompleted, Archived: chat.OnlyArchived}, 10, 0, []string{"s6"}, 1, false},
		{"every archived", chat.ListFilter{Archived: chat.OnlyArchived}, 10, 0, []string{"s6", "s3"}, 2, false},
		{"everything", chat.ListFilter{Archived: chat.IncludeArchived}, 10, 0, []string{"s6", "s5", "s4", "s3", "s2", "s1"}, 6, false},
		{"interrupted: none", chat.ListFilter{Status: chat.StatusInterrupted}, 10, 0, []string{}, 0, false},
		{"first page", chat.ListFilter{Archived: chat.IncludeArchived}, 2, 0, []string{"s6", "s5"}, 6, true},
		{"middle page", chat.ListFilter{Archived: chat.IncludeArchived}, 2, 2, []string{"s4", "s3"}, 6, true},
		{"last page exactly", chat.ListFilter{Archived: chat.IncludeArchived}, 2, 4, []string{"s2", "s1"}, 6, false},
		{"short last page", chat.ListFilter{}, 3, 3, []string{"s1"}, 4, false},
		{"past the end", chat.ListFilter{}, 3, 9, []string{}, 4, false},
		{"one of a status, paged", chat.ListFilter{Status: chat.StatusActive, Archived: chat.IncludeArchived}, 1, 1, []string{"s3"}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.ListSessions(t.Context(), "ten", "ana", tt.filter, tt.limit, tt.offset)
			if err != nil {
				t.Fatalf("ListSessions: %v", err)
			}
			if got := titles(page.Sessions); !slices.Equal(got, tt.want) {
				t.Errorf("sessions: got %q, want %q", got, tt.want)
			}
			if page.Total != tt.total || page.HasMore != tt.hasMore {
				t.Errorf("total, hasMore: got %d, %v, want %d, %v", page.Total, page.HasMore, tt.total, tt.hasMore)
			}
		})
	}

	// An archived session keeps its status; a step moves a session to the top.
	page, err := s.ListSessions(t.Context(), "ten", "ana", chat.ListFilter{Archived: chat.OnlyArchived}, 1, 0)
	if err != nil || len(page.Sessions) != 1 {
		t.Fatalf("ListSessions(archived): got (%v, %v), want one session", page.Sessions, err)
	}
	if got := page.Sessions[0]; got.Status != chat.StatusCompleted || !got.Archived || got.MessageCount != 1 {
		t.Errorf("archived s6: got status %q archived %v count %d, want completed, true, 1", got.Status, got.Archived, got.MessageCount)
	}
	clk.Advance(time.Minute)
	appendMsgs(t, s, seeded["s1"], "again")
	page, err = s.ListSessions(t.Context(), "ten", "ana", chat.ListFilter{}, 2, 0)
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	if got, want := titles(page.Sessions), []string{"s1", "s5"}; !slices.Equal(got, want) || page.Sessions[0].MessageCount != 2 {
		t.Errorf("after a step on s1: got %q (count %d), want %q (count 2)", got, page.Sessions[0].MessageCount, want)
	}

	for _, bad := range []struct {
		f             chat.ListFilter
		limit, offset int
	}{{chat.ListFilter{Status: "archived"}, 10, 0}, {chat.ListFilter{}, 0, 0}, {chat.ListFilter{}, 5, -1}, {chat.ListFilter{Archived: 7}, 5, 0}} {
		if _, err := s.ListSessions(t.Context(), "ten", "ana", bad.f, bad.limit, bad.offset); err == nil {
			t.Errorf("ListSessions(%+v, %d, %d): got nil error, want one", bad.f, bad.limit, bad.offset)
		}
	}
}

func TestLatestSession(t *testing.T) {
	s, clk, _ := newStore(t)
	seedSessions(t, s, clk)
	tests := []struct {
		user   string
		status chat.Status
		want   string
	}{
		{"ana", chat.StatusActive, "s5"},
		{"ana", chat.StatusCompleted, "s2"},
		{"ana", chat.StatusFailed, "s4"},
		{"ana", chat.StatusInterrupted, ""},
		{"bob", chat.StatusActive, "bob's"},
		{"cid", chat.StatusActive, ""},
	}
	for _, tt := range tests {
		got, err := s.LatestSession(t.Context(), "ten", tt.user, tt.status)
		switch {
		case tt.want == "" && !errors.Is(err, chat.ErrNotFound):
			t.Errorf("LatestSession(%s, %s): got (%q, %v), want ErrNotFound", tt.user, tt.status, got.Title, err)
		case tt.want != "" && (err != nil || got.Title != tt.want):
			t.Errorf("LatestSession(%s, %s): got (%q, %v), want %q", tt.user, tt.status, got.Title, err, tt.want)
		}
	}
}

func TestArchive(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "q")
	sess, err := s.SetStatus(ctx, "ten", sess.ID, chat.StatusCompleted)
	if err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	clk.Advance(time.Hour)
	tests := []struct {
		name, tenant, user, id string
		want                   error
	}{
		{"another user of the tenant", "ten", "bob", sess.ID, chat.ErrForbidden},
		{"another tenant", "other", "ana", sess.ID, chat.ErrNotFound},
		{"unknown session", "ten", "ana", "3b0e8f0e-0000-4000-8000-000000000000", chat.ErrNotFound},
		{"the owner", "ten", "ana", sess.ID, nil},
		{"the owner again", "ten", "ana", sess.ID, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Archive(ctx, tt.tenant, tt.user, tt.id)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Archive: got %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				return
			}
			if !got.Archived || got.Status != chat.StatusCompleted || !got.ArchivedAt.Equal(t0.Add(time.Hour)) || !got.UpdatedAt.Equal(sess.UpdatedAt) {
				t.Errorf("got archived %v status %q archivedAt %v updatedAt %v, want true, completed, %v, %v",
					got.Archived, got.Status, got.ArchivedAt, got.UpdatedAt, t0.Add(time.Hour), sess.UpdatedAt)
			}
		})
	}
	got, err := s.GetSession(ctx, "ten", sess.ID)
	if err != nil || !got.Archived || got.Status != chat.StatusCompleted {
		t.Errorf("GetSession after archiving: got (archived %v, status %q, %v), want (true, completed, nil)", got.Archived, got.Status, err)
	}
	// A step read before the archive loses: it would file the session as unarchived.
	if _, err := s.Append(ctx, sess, Step{Messages: []chat.Message{{Role: chat.RoleUser, Content: "x"}}}); !errors.Is(err, chat.ErrConcurrentAppend) {
		t.Errorf("Append to a session archived since it was read: got %v, want ErrConcurrentAppend", err)
	}
}

func TestSetStatusFollowsTask(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "q")
	for _, st := range []chat.Status{chat.StatusInterrupted, chat.StatusActive, chat.StatusFailed, chat.StatusFailed} {
		clk.Advance(time.Minute)
		got, err := s.SetStatus(ctx, "ten", sess.ID, st)
		if err != nil || got.Status != st {
			t.Fatalf("SetStatus(%s): got (%q, %v), want (%q, nil)", st, got.Status, err, st)
		}
		for _, other := range chat.Statuses {
			page, err := s.ListSessions(ctx, "ten", "ana", chat.ListFilter{Status: other}, 5, 0)
			if err != nil {
				t.Fatalf("ListSessions(%s): %v", other, err)
			}
			if want := btoi(other == st); page.Total != want || len(page.Sessions) != want {
				t.Errorf("after SetStatus(%s), listing %s: got %d (total %d), want %d", st, other, len(page.Sessions), page.Total, want)
			}
		}
	}
	if got, err := s.GetSession(ctx, "ten", sess.ID); err != nil || !got.UpdatedAt.Equal(t0) {
		t.Errorf("updatedAt after status changes: got (%v, %v), want (%v, nil): a status change is no activity", got.UpdatedAt, err, t0)
	}
	if _, err := s.SetStatus(ctx, "ten", "missing", chat.StatusActive); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("SetStatus of a missing session: got %v, want ErrNotFound", err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
