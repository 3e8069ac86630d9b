package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/debugmode"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/knowledge"
)

type resolver interface {
	Resolve(ctx context.Context, tenantID, rawURL, query string) (knowledge.Result, error)
}

// resolveData is ResolveKnowledgeResponse (SERVER_SIDE_AGENT_ARCH.md §5.2), plus ragDebug in
// debug mode.
type resolveData struct {
	Allowed         bool                 `json:"allowed"`
	Domain          string               `json:"domain"`
	HasOrgKnowledge bool                 `json:"hasOrgKnowledge"`
	Context         []knowledge.Chunk    `json:"context"`
	Citations       []knowledge.Citation `json:"citations"`
	RAGDebug        *knowledge.Debug     `json:"ragDebug,omitempty"`
}

// newHandler answers with the knowledge for the url (and query) in the token's tenant. The
// debug metadata always goes to the request's log line; the answer carries it as ragDebug only
// in debug mode: debug=true asked for and the user's preferences having debugMode on, so that
// an ordinary user's tools never see how retrieval works inside.
func newHandler(svc resolver, prefs debugmode.PreferencesReader) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		debug, err := debugmode.Enabled(r, prefs, id)
		if err != nil {
			return err
		}
		q := r.URL.Query()
		res, err := svc.Resolve(r.Context(), id.TenantID, q.Get("url"), q.Get("query"))
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), res.Debug.LogAttr())
		data := resolveData{
			Allowed:         true,
			Domain:          res.Domain,
			HasOrgKnowledge: res.HasOrgKnowledge,
			Context:         res.Chunks,
			Citations:       res.Citations,
		}
		if debug {
			data.RAGDebug = &res.Debug
		}
		httpapi.WriteData(w, http.StatusOK, data)
		return nil
	})
}
