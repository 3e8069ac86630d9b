package loginfail

import "strings"

// questions: what the site reported, and what the user can do about it. The user can
// always take over the browser, so every question offers that.
var questions = map[Kind]struct{ lead, ask string }{
	KindWrongCredentials: {"The site rejected the login details",
		"Could you check your credentials and tell me the right ones (or log in yourself and tell me when you're done)?"},
	KindUnknownAccount: {"The site does not know that account",
		"Which email or username should I use (or would you rather log in yourself and tell me when you're done)?"},
	KindAccountLocked: {"The site says the account is locked or disabled",
		"Trying again will not help: could you unlock it (or contact the site's support) and tell me when I can continue?"},
	KindTooManyAttempts: {"The site is blocking further login attempts for now",
		"Should I wait and try again later, or will you log in yourself and tell me when you're done?"},
	KindCaptcha: {"The site wants a CAPTCHA solved",
		"I can't solve it: could you complete it in the browser (and log in if needed), then tell me when you're done?"},
	KindMFARequired: {"The site asks for a second verification step",
		"Could you tell me the code you received (or complete that step yourself and tell me when you're done)?"},
	KindMFAInvalid: {"The site rejected the verification code",
		"Could you tell me a new code (or enter it yourself and tell me when you're done)?"},
	KindSessionExpired: {"The site ended the session and asks to log in again",
		"Could you tell me the credentials to use (or log in yourself and tell me when you're done)?"},
	KindLoginFailed: {"The login did not work",
		"Could you check your credentials and tell me the right ones (or log in yourself and tell me when you're done)?"},
}

// question is the userQuestion for a failure of kind k, quoting the site's words.
func question(k Kind, evidence string) string {
	q := questions[k]
	said := strings.TrimRight(evidence, " .。!！")
	if said == "" {
		return q.lead + ". " + q.ask
	}
	return q.lead + ": “" + said + "”. " + q.ask
}
