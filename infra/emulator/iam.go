package emulator

import (
	"strings"

	"github.com/screenagent/backend/shared/sam"
)

// authorizer is requestContext.authorizer of payload 2.0; only IAM authorization is emulated.
type authorizer struct {
	IAM *iamCaller `json:"iam,omitempty"`
}

// iamCaller is requestContext.authorizer.iam: who signed the request.
type iamCaller struct {
	AccessKey      string  `json:"accessKey"`
	AccountID      string  `json:"accountId"`
	CallerID       string  `json:"callerId"`
	PrincipalOrgID *string `json:"principalOrgId"`
	UserARN        string  `json:"userArn"`
	UserID         string  `json:"userId"`
}

// iamEvents returns "<function>/<event>" for every HttpApi event whose Auth asks for AWS_IAM.
func iamEvents(t *sam.Template) map[string]bool {
	events := map[string]bool{}
	for _, f := range t.Functions() {
		for _, e := range f.Events {
			if auth, ok := e.Properties["Auth"].(map[string]any); ok && e.Type == "HttpApi" && auth["Authorizer"] == "AWS_IAM" {
				events[f.LogicalID+"/"+e.Name] = true
			}
		}
	}
	return events
}

// requireIAM marks the routes of the given events as IAM-authorized.
func (r *router) requireIAM(events map[string]bool) {
	for i := range r.routes {
		r.routes[i].iam = events[r.routes[i].function+"/"+r.routes[i].event]
	}
}

// sigV4Caller reads the caller of a request signed with AWS Signature Version 4 from its
// Authorization header, or returns nil when the request is not signed. Like API Gateway it
// refuses unsigned requests to IAM routes; unlike it, it can't check the signature (there are no
// IAM users locally), so any well-formed signature passes and the access key is the caller.
func sigV4Caller(header, accountID string) *iamCaller {
	rest, ok := strings.CutPrefix(header, "AWS4-HMAC-SHA256 ")
	if !ok {
		return nil
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
			fields[k] = v
		}
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[0] == "" || scope[4] != "aws4_request" || fields["SignedHeaders"] == "" || fields["Signature"] == "" {
		return nil
	}
	return &iamCaller{
		AccessKey: scope[0],
		AccountID: accountID,
		CallerID:  scope[0],
		UserARN:   "arn:aws:iam::" + accountID + ":user/local",
		UserID:    scope[0],
	}
}
