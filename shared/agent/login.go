package agent

import (
	"encoding/json"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/loginfail"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// maxLoginTexts bounds the text lines of a login page kept on the task.
const maxLoginTexts = 80

// loginView is what the login-failure detector needs of a page.
func loginView(url string, pg *pagemodel.Page) loginfail.Page {
	v := loginfail.Page{URL: url, Title: pg.Title(), Texts: pg.Texts()}
	for _, e := range pg.Elements() {
		if f, ok := loginfail.FieldOf(e.Tag, e.Attr); ok {
			v.Fields = append(v.Fields, f)
		}
		if role, _ := e.Attr("role"); role == "alert" && e.Text != "" {
			v.Alerts = append(v.Alerts, e.Text)
		}
	}
	return v
}

// checkLogin hands a failed login to the user (decision 12: detected in code, no model call):
// after an action on a login page, a page that reports wrong credentials, a lockout, a CAPTCHA
// or a second factor is answered with the site's words as a question. It also keeps the current
// page on the task when it is a login page, for the next step.
func checkLogin(mem *tasks.Memory, cur loginfail.Page) (decision, bool) {
	var prev loginfail.Page
	last := mem.Last()
	if last != nil && len(mem.LoginPage) > 0 && json.Unmarshal(mem.LoginPage, &prev) == nil {
		if res := loginfail.Detect(prev, cur, last.Action); res.Failed {
			if ask, err := actions.New("askUser", res.UserQuestion); err == nil {
				mem.LoginPage = nil
				return decision{
					thought: trust.Sentence("The site did not accept the login: "+res.Evidence) + " Only you can fix this, so I'm asking you.",
					// No model was asked: modelAction stays empty, so the step is the server's alone.
					action: ask,
					note:   "the server detected a failed login (" + string(res.Kind) + ") and asked the user",
				}, true
			}
		}
	}
	mem.LoginPage = nil
	if loginfail.IsLoginPage(cur) {
		kept := cur
		if len(kept.Texts) > maxLoginTexts {
			kept.Texts = kept.Texts[:maxLoginTexts]
		}
		mem.LoginPage, _ = json.Marshal(kept)
	}
	return decision{}, false
}
