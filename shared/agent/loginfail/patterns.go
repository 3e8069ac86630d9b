package loginfail

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// A rule is the patterns of one kind of message in one language. Patterns are written
// in lower case, in the language's own spelling (diacritics, kana, Cyrillic): foldPattern
// brings them to the form fold gives the page's sentences. \b marks a word edge and may
// only stand at the outer edge of a word (it consumes the space between words).
type rule struct {
	kind Kind
	lang string
	// weak rules are words that are also ordinary vocabulary ("unauthorized", "access
	// denied"): they count only as a short message of their own, in an alert or a title
	// or on a login page.
	weak bool
	// re is compiled on first use: compiling every rule takes ~30 ms, which a function's cold
	// start should not pay, and the literal index runs only a sentence's candidate rules.
	re func() *regexp.Regexp
	// literals holds strings one of which every match contains (nil when there are
	// none): see literalIndex.
	literals []string
}

func newRule(kind Kind, lang string, weak bool, alternatives ...string) rule {
	for i, a := range alternatives {
		alternatives[i] = foldPattern(a)
	}
	src := "(?:" + strings.Join(alternatives, ")|(?:") + ")"
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("loginfail: rule %s/%s: %v", kind, lang, err))
	}
	lits, _ := requiredLiterals(parsed.Simplify())
	return rule{kind: kind, lang: lang, weak: weak, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) }), literals: lits}
}

// A literalIndex tells which rules may match a sentence from the literals it contains.
// Go runs regular expressions without a DFA, and with the windows between words, running
// every rule on every sentence costs about a millisecond a sentence; looking each
// literal up with strings.Contains still costs tens of microseconds. The index looks
// at each position of the sentence once, by the two bytes found there.
type literalIndex struct {
	always   []int // rules without literals
	byPrefix map[string][]indexedLiteral
	n        int
}

type indexedLiteral struct {
	lit   string
	rules []int
}

func newLiteralIndex(rs []rule) literalIndex {
	ix := literalIndex{byPrefix: map[string][]indexedLiteral{}, n: len(rs)}
	at := map[string]int{} // literal -> its position in byPrefix[prefix]
	for i, r := range rs {
		// A literal of one byte would be looked up at every position: such a rule
		// (there is none today) is simply always tried.
		if r.literals == nil || shortest(r.literals) < 2 {
			ix.always = append(ix.always, i)
			continue
		}
		for _, l := range r.literals {
			p := l[:2]
			j, ok := at[l]
			if !ok {
				j = len(ix.byPrefix[p])
				at[l] = j
				ix.byPrefix[p] = append(ix.byPrefix[p], indexedLiteral{lit: l})
			}
			if rules := ix.byPrefix[p][j].rules; len(rules) == 0 || rules[len(rules)-1] != i {
				ix.byPrefix[p][j].rules = append(rules, i)
			}
		}
	}
	return ix
}

// candidates reports, for each rule, whether the folded sentence contains one of its
// literals.
func (ix literalIndex) candidates(folded string) []bool {
	out := make([]bool, ix.n)
	for _, i := range ix.always {
		out[i] = true
	}
	for i := 0; i+2 <= len(folded); i++ {
		for _, il := range ix.byPrefix[folded[i:i+2]] {
			if strings.HasPrefix(folded[i:], il.lit) {
				for _, r := range il.rules {
					out[r] = true
				}
			}
		}
	}
	return out
}

// requiredLiterals finds strings one of which every match of re contains: a literal is
// its own; a concatenation needs what any of its parts needs (the part whose shortest
// string is longest is the most selective); an alternation needs what one of its
// branches needs, so all of them, and only when each branch has some. ok is false when
// re can match without any literal (a class, an optional part).
func requiredLiterals(re *syntax.Regexp) (lits []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		best := -1
		for _, sub := range re.Sub {
			if l, ok := requiredLiterals(sub); ok && shortest(l) > best {
				lits, best = l, shortest(l)
			}
		}
		return lits, best >= 0
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, ok := requiredLiterals(sub)
			if !ok {
				return nil, false
			}
			lits = append(lits, l...)
		}
		return lits, true
	}
	return nil, false
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// pattern is a rule as written: its kind, language and strength (see rule.weak), and the
// alternatives any of which is the message.
type pattern struct {
	kind         Kind
	lang         string
	weak         bool
	alternatives []string
}

// buildRules makes the rules of the patterns, in their order.
func buildRules() []rule {
	rs := make([]rule, len(patterns))
	for i, p := range patterns {
		rs[i] = newRule(p.kind, p.lang, p.weak, slices.Clone(p.alternatives)...)
	}
	return rs
}

// patterns are the roadmap's English patterns (SERVER_QA_ROADMAP.md §4.2.1, with its bare
// "unauthorized" demoted to a weak rule) and their equivalents in nine more languages. They stay
// text until the first login page needs them (ruleSet).
var patterns = []pattern{
	// English.
	{KindWrongCredentials, "en", false, []string{
		`\b(invalid|incorrect|wrong|unrecogni[sz]ed)\b.{0,25}\b(password|passcode|pin|credentials?|user ?name|user id|e-?mail|e-?mail address|login|log[- ]?in details|sign[- ]?in details|details)\b`,
		`\b(password|passcode|pin|credentials?|details|info|information|user ?name|user id|e-?mail|e-?mail address|login|account|combination|apple id)\b.{0,40}\b((is|are|was|were|seems to be|appears to be) (invalid|incorrect|wrong|not (correct|valid|right|recogni[sz]ed))|(isn't|aren't|wasn't|weren't) (correct|valid|right|recogni[sz]ed))\b`,
		`\b(e-?mail|user ?name|credentials|details|information)\b.{0,50}\b(do|does|did) ?(n't|not) match\b`,
		`\b(do|does|did) ?(n't|not) match (our|any of our|the) records\b`,
		`\bnot the (right|correct) password\b`,
		`\bplease enter the correct (user ?name|e-?mail|e-?mail address|password)\b`,
		`\b(user ?name|e-?mail|e-?mail address|password) (may|might) be (incorrect|wrong|invalid)\b`,
		`\b(could ?n't|could not|can't|cannot|were unable to|was unable to|unable to) (verify|validate|authenticate|recogni[sz]e) (your |the |those |these )?(credentials|details|login|password|e-?mail|user ?name|sign[- ]?in)\b`,
		`\bcheck your ((user ?name|e-?mail|e-?mail address|login|account) (and|or) password|password|credentials|login details)\b`,
		`\bauthentication (failed|error) (invalid|incorrect|wrong|bad) (credentials|password)\b`}},
	{KindUnknownAccount, "en", false, []string{
		`\b(could ?n't|could not|can't|cannot|unable to|we did ?n't|we did not) find (your |an |any |that |this |the )?([a-z]+ )?(account|user)\b`,
		`\b(no|there is no|there's no) (account|user)s? (found|exists|registered|associated|with|for|matches|matching)\b`,
		`\b(account|user|e-?mail|e-?mail address|user ?name)\b.{0,30}\b(not found|does ?n't exist|does not exist|is not registered|isn't registered)\b`,
		`\bunknown (user|account|e-?mail|user ?name|e-?mail address)\b`,
		`\bwe (don't|do not) recogni[sz]e (this|that|your) (e-?mail|user ?name|account|e-?mail address)\b`}},
	{KindAccountLocked, "en", false, []string{
		`\b(account|user|profile|apple id|login|access)\b.{0,40}\b(has been|have been|is|was|got|is now|is currently|are) (temporarily |permanently )?(locked|blocked|disabled|suspended|deactivated|frozen|banned|restricted)\b`,
		`\baccount (locked|blocked|disabled|suspended|deactivated)\b`,
		`\btemporarily (locked|blocked|suspended)\b`,
		`\b(locked|blocked) out\b`}},
	{KindTooManyAttempts, "en", false, []string{
		`\btoo many (failed |unsuccessful |incorrect |invalid |wrong |login |sign[- ]?in |log[- ]?in )*(attempts|tries|requests)\b`,
		`\b(reached|exceeded) the (maximum|max) (number of )?(login |sign[- ]?in |log[- ]?in )?(attempts|tries)\b`,
		`\b(attempt|login|sign[- ]?in) limit (reached|exceeded)\b`}},
	{KindCaptcha, "en", false, []string{
		`\b(complete|solve|fill in|verify|check|confirm) (the )?(captcha|recaptcha|security check|puzzle)\b`,
		`\b(captcha|recaptcha)\b.{0,30}\b(invalid|incorrect|wrong|failed|required|expired|did ?n't match|not solved)\b`,
		`\b(verify|confirm|prove) (that )?(you are|you're) (a )?(human|not a robot)\b`,
		`\bi'?m not a robot\b`, `\bi am not a robot\b`,
		`\bthe characters you (entered|typed) did ?n't match\b`,
		`\btype the (characters|text) (you see|in the image|shown)\b`,
		`\bunusual traffic\b`}},
	{KindMFAInvalid, "en", false, []string{
		`\b((verification|security|authentication|one-time|two-factor|2fa|otp|sms|confirmation|login|sign[- ]?in|access|authenticator) (code|passcode)|(the|this|that|your) code)\b.{0,30}\b(invalid|incorrect|wrong|expired|not valid|not correct|did ?n't match)\b`,
		`\b(invalid|incorrect|wrong|expired) (verification |security |authentication |one-time |two-factor |2fa |otp |sms |confirmation )?(code|passcode|otp)\b`,
		`\b(two|2)[- ]?(factor|step) (authentication|verification) failed\b`}},
	{KindSessionExpired, "en", false, []string{
		`\bsession (has )?(expired|timed out|ended|has ended|is no longer valid)\b`,
		`\bsession (expiry|timeout)\b`,
		`\b(you've been|you have been|you were) automatically (logged|signed) out\b`,
		`\b(logged|signed) out (due to|because of|after) (inactivity|a period of inactivity|\d+ minutes)\b`,
		`\bplease (log|sign) ?in again\b`,
		`\b(log|sign) ?in again to continue\b`}},
	{KindLoginFailed, "en", false, []string{
		`\b(login|log[- ]?in|sign[- ]?in|sign[- ]?on|logon|authentication|authori[sz]ation) (attempt )?(has )?(failed|unsuccessful|was unsuccessful|error|denied|rejected|did ?n't work|was not successful)\b`,
		`\b(unable to|could ?n't|could not|can't|cannot|failed to) (log|sign) ?(you )?in\b`}},
	{KindLoginFailed, "en", true, []string{`\bunauthori[sz]ed\b`, `\baccess denied\b`, `\bnot authori[sz]ed\b`}},
	{KindMFARequired, "en", false, []string{
		`\b(enter|type|input|provide) (the |your |a )?(\d[- ]digit |\d )?(verification |security |authentication |one-time |2fa |two-factor |login |sign[- ]?in |otp |access |confirmation |authenticator )?(code|passcode)\b`,
		`\b(we've|we have|we|we just) (sent|texted|emailed) (you )?(a |an |the |your )?(\d[- ]digit )?(verification |security |one-time |login |sign[- ]?in |confirmation |authentication |magic )?(code|link|passcode)\b`,
		`\b(two|2)[- ]?(factor|step) (authentication|verification|login|sign[- ]?in)\b`,
		`\b(approve (the |this )?(sign[- ]?in|login) request|open your authenticator app|use your security key|check your (phone|authenticator))\b`}},

	// German.
	{KindWrongCredentials, "de", false, []string{
		`\b(falsche[rsnm]?|ungültige[rsnm]?|inkorrekte[rsnm]?)\b.{0,30}\b(passwort|kennwort|zugangsdaten|anmeldedaten|login-daten|logindaten|anmeldeinformationen|benutzername|benutzerkennung|e-mail|e-mail-adresse|email|kombination|pin)\b`,
		`\b(passwort|kennwort|zugangsdaten|anmeldedaten|logindaten|login-daten|benutzername|e-mail-adresse|e-mail|email|kombination|pin)\b.{0,50}\b(falsch|ungültig|nicht korrekt|nicht richtig|inkorrekt|nicht gültig)\b`,
		`\b(e-mail|e-mail-adresse|email|benutzername|zugangsdaten|anmeldedaten|kombination)\b.{0,50}\b(stimmen|stimmt|passen|passt) nicht\b`,
		`\b(bitte )?(überprüfen sie|überprüfe|prüfen sie|prüfe) (ihre|deine) (zugangsdaten|anmeldedaten|eingaben)\b`,
		`\b(zugangsdaten|anmeldedaten|daten)\b.{0,40}\bkonnten nicht (verifiziert|bestätigt|überprüft)\b`}},
	{KindUnknownAccount, "de", false, []string{
		`\b(kein|keine|keinen) (konto|benutzerkonto|account|benutzer|nutzer|kundenkonto)\b.{0,40}\b(gefunden|vorhanden|registriert)\b`,
		`\b(konto|benutzerkonto|account|benutzer|nutzer|benutzername|e-mail-adresse)\b.{0,30}\b(nicht gefunden|existiert nicht|nicht registriert|ist unbekannt|nicht bekannt)\b`,
		`\bunbekannte[rs]? (benutzer|benutzername|e-mail-adresse|e-mail|konto)\b`}},
	{KindAccountLocked, "de", false, []string{
		`\b(konto|benutzerkonto|account|zugang|kundenkonto)\b.{0,40}\b(ist|wurde|wurden)\b.{0,40}\b(gesperrt|deaktiviert|blockiert)\b`,
		`\b(konto|benutzerkonto|account|zugang) (gesperrt|deaktiviert|blockiert)\b`}},
	{KindTooManyAttempts, "de", false, []string{
		`\bzu viele\b.{0,30}\b(versuche|anmeldeversuche|fehlversuche|login-versuche|anfragen)\b`}},
	{KindCaptcha, "de", false, []string{
		`\b(captcha|recaptcha|sicherheitsabfrage)\b.{0,30}\b(falsch|ungültig|fehlgeschlagen|erforderlich|lösen|ausfüllen|bestätigen)\b`,
		`\b(bestätigen|bestätige) (sie )?(dass )?(sie|du) (kein roboter|ein mensch) (sind|bist)\b`,
		`\bich bin kein roboter\b`}},
	{KindMFAInvalid, "de", false, []string{
		`\b(bestätigungscode|sicherheitscode|verifizierungscode|authentifizierungscode|einmalcode|code)\b.{0,30}\b(ungültig|falsch|abgelaufen|nicht korrekt)\b`,
		`\b(ungültiger|falscher|abgelaufener) (bestätigungscode|sicherheitscode|verifizierungscode|code)\b`}},
	{KindSessionExpired, "de", false, []string{
		`\bsitzung\b.{0,30}\b(abgelaufen|beendet|ungültig)\b`,
		`\b(sie wurden|du wurdest) automatisch abgemeldet\b`,
		`\bbitte (melden sie sich|melde dich) (erneut|neu|noch einmal) an\b`,
		`\bbitte (erneut|neu) anmelden\b`}},
	{KindLoginFailed, "de", false, []string{
		`\b(anmeldung|login|einloggen|anmelden|authentifizierung)\b.{0,20}\b(fehlgeschlagen|nicht erfolgreich|gescheitert)\b`,
		`\b(anmeldefehler|fehler bei der anmeldung|loginfehler)\b`,
		`\b(wir konnten sie nicht anmelden|wir konnten dich nicht anmelden|sie konnten nicht angemeldet werden)\b`}},
	{KindLoginFailed, "de", true, []string{`\b(zugriff verweigert|nicht autorisiert|keine berechtigung)\b`}},
	{KindMFARequired, "de", false, []string{
		`\b(geben sie|gib) (den |deinen |ihren |einen )?(\d-stelligen )?(bestätigungscode|sicherheitscode|verifizierungscode|authentifizierungscode|einmalcode|code)\b`,
		`\bwir haben (ihnen |dir )?(einen |den )?(\d-stelligen )?(bestätigungscode|sicherheitscode|verifizierungscode|code|link)\b`,
		`\b(zwei|2)-?(faktor|stufige|schritt)[- ]?(authentifizierung|verifizierung|bestätigung|anmeldung)\b`}},

	// French.
	{KindWrongCredentials, "fr", false, []string{
		`\b(identifiant|identifiants|mot de passe|adresse e-?mail|e-?mail|adresse électronique|nom d'utilisateur|informations de connexion|code d'accès|courriel)\b.{0,50}\b(incorrecte?s?|invalides?|erronée?s?|non valides?|ne (sont|est) pas (valides?|corrects?|correctes?))\b`,
		`\b(mauvaise?|incorrecte?s?|invalides?) (identifiant|identifiants|mot de passe|adresse|e-?mail|nom d'utilisateur)\b`,
		`\b(identifiant|identifiants|mot de passe|e-?mail|adresse)\b.{0,50}\bne correspond(ent)? (pas|à aucun)\b`,
		`\bvérifiez (vos identifiants|vos informations de connexion|votre mot de passe)\b`}},
	{KindUnknownAccount, "fr", false, []string{
		`\b(aucun|pas de) compte\b.{0,40}\b(trouvé|associé|existe|correspond)`,
		`\b(compte|utilisateur|adresse e-?mail|identifiant)\b.{0,20}\b(introuvable|inconnue?|n'existe pas|non trouvé|non reconnue?)\b`}},
	{KindAccountLocked, "fr", false, []string{
		`\b(compte|accès)\b.{0,40}\b(a été|est|sont)\b.{0,20}\b(bloquée?|verrouillée?|désactivée?|suspendue?)\b`,
		`\bcompte (bloqué|verrouillé|désactivé|suspendu)\b`}},
	{KindTooManyAttempts, "fr", false, []string{`\btrop de (tentatives|essais|demandes)\b`}},
	{KindCaptcha, "fr", false, []string{
		`\b(captcha|recaptcha)\b.{0,30}\b(incorrecte?|invalide|obligatoire|requise?|valider|cocher|remplir|échoué)\b`,
		`\bje ne suis pas un robot\b`,
		`\b(confirmez|prouvez|vérifiez) que vous (êtes|n'êtes pas) (un humain|humain|un robot)\b`}},
	{KindMFAInvalid, "fr", false, []string{
		`\b(le |ce |votre )?code( de vérification| de sécurité| de confirmation| d'authentification| à usage unique| sms)?( saisi| entré)? (est |a )?(incorrect|invalide|erroné|expiré|n'est pas valide)\b`}},
	{KindSessionExpired, "fr", false, []string{
		`\bsession (a )?(expirée?|expiré)\b`,
		`\bveuillez vous (re)?connecter (à nouveau|de nouveau)\b`,
		`\bveuillez vous reconnecter\b`,
		`\bvous avez été (automatiquement déconnectée?|déconnectée? automatiquement|déconnectée? pour cause d'inactivité)\b`}},
	{KindLoginFailed, "fr", false, []string{
		`\b(échec|erreur) (de |de la |de l'|d'|lors de la )(connexion|authentification|identification)\b`,
		`\b(la )?(connexion|authentification|identification) a échoué\b`,
		`\b(connexion|authentification) (échouée|impossible|refusée)\b`,
		`\bimpossible de (vous|se|te) connecter\b`,
		`\bnous n'avons pas pu vous connecter\b`}},
	{KindLoginFailed, "fr", true, []string{`\b(accès refusé|non autorisé)\b`}},
	{KindMFARequired, "fr", false, []string{
		`\b(saisissez|entrez|saisir|entrer|indiquez) (le |votre )?code\b`,
		`\bnous (vous )?avons envoyé (un|le) (code|lien)\b`,
		`\b(authentification|vérification|validation) (à|en) (deux|2) (facteurs|étapes)\b`,
		`\bdouble authentification\b`}},

	// Spanish.
	{KindWrongCredentials, "es", false, []string{
		`\b(usuario|contraseña|correo|correo electrónico|email|e-mail|credenciales|datos de acceso|clave|nombre de usuario|datos)\b.{0,50}\b(incorrect[oa]s?|inválid[oa]s?|no (son|es) (válid|correct)[oa]s?|erróne[oa]s?|equivocad[oa]s?)\b`,
		`\b(incorrect[oa]s?|inválid[oa]s?) (usuario|contraseña|correo|credenciales|clave)\b`}},
	{KindUnknownAccount, "es", false, []string{
		`\b(no existe|no hay|no encontramos|no hemos encontrado|no se encontró|no se ha encontrado|no pudimos encontrar) (ninguna |una |tu |la )?(cuenta|usuario)\b`,
		`\b(cuenta|usuario)\b.{0,20}\b(no encontrad[oa]|no existe|no registrad[oa]|no está registrad[oa])\b`,
		`\bcorreo\b.{0,30}\bno está registrado\b`}},
	{KindAccountLocked, "es", false, []string{
		`\b(cuenta|usuario|acceso)\b.{0,40}\b(ha sido|está|fue|se ha|queda|quedó)\b.{0,20}\b(bloquead[oa]|suspendid[oa]|deshabilitad[oa]|desactivad[oa])\b`,
		`\bse ha (bloqueado|suspendido|desactivado) (tu|su|la) cuenta\b`,
		`\bcuenta (bloqueada|suspendida|deshabilitada)\b`}},
	{KindTooManyAttempts, "es", false, []string{`\bdemasiados (intentos|solicitudes)\b`}},
	{KindCaptcha, "es", false, []string{
		`\bno soy un robot\b`,
		`\b(captcha|recaptcha)\b.{0,30}\b(incorrect[oa]|inválid[oa]|obligatori[oa])\b`,
		`\b(completa|resuelve|verifica|complete) el (captcha|recaptcha)\b`,
		`\bconfirma que (eres humano|no eres un robot)\b`}},
	{KindMFAInvalid, "es", false, []string{
		`\b(el )?código( de verificación| de seguridad| de confirmación)?\b.{0,20}\b(es )?(incorrecto|inválido|no es válido|ha caducado|ha expirado|caducado|expirado)\b`}},
	{KindSessionExpired, "es", false, []string{
		`\bsesión (ha )?(expirado|caducado|finalizado)\b`,
		`\bsesión (expirada|caducada)\b`,
		`\b(vuelve|vuelva) a iniciar sesión\b`,
		`\b(inicia|inicie) sesión (de nuevo|nuevamente|otra vez)\b`}},
	{KindLoginFailed, "es", false, []string{
		`\berror (al|de) inici(ar|o) (de )?sesión\b`,
		`\b(inicio de sesión|autenticación) (fallid[oa]|incorrect[oa])\b`,
		`\bno (se ha podido|se pudo|hemos podido|pudimos|es posible) (iniciar (tu |la |su )?sesión|autenticar|acceder)\b`,
		`\bfalló (la autenticación|el inicio de sesión)\b`}},
	{KindLoginFailed, "es", true, []string{`\b(acceso denegado|no autorizado)\b`}},
	{KindMFARequired, "es", false, []string{
		`\b(introduce|ingresa|escribe|introduzca|ingrese) (el |tu |su )?código\b`,
		`\b(te|le) (hemos enviado|enviamos) (un|el) (código|enlace)\b`,
		`\b(verificación|autenticación) (en dos pasos|de dos (factores|pasos))\b`}},

	// Italian.
	{KindWrongCredentials, "it", false, []string{
		`\b(nome utente|password|credenziali|e-?mail|indirizzo e-?mail|utente|dati di accesso)\b.{0,50}\b(errat[aoie]|sbagliat[aoie]|non (è |sono )?(valid|corrett)[aoie]|non riconosciut[aoie])\b`,
		`\b(credenziali|password) (errate|errata|non valide|non valida|non corrette|non corretta)\b`}},
	{KindUnknownAccount, "it", false, []string{
		`\bnessun (account|utente)\b.{0,40}\b(trovato|associato|registrato|esistente)\b`,
		`\b(account|utente|indirizzo e-?mail)\b.{0,20}\b(non trovato|non esiste|inesistente|non registrato)\b`}},
	{KindAccountLocked, "it", false, []string{
		`\b(account|utenza|profilo)\b.{0,40}\b(è stato|è stata|è|risulta)\b.{0,20}\b(bloccat[oa]|sospes[oa]|disabilitat[oa]|disattivat[oa])\b`,
		`\baccount (bloccato|sospeso|disabilitato)\b`}},
	{KindTooManyAttempts, "it", false, []string{`\btroppi tentativi\b`, `\btroppe richieste\b`}},
	{KindCaptcha, "it", false, []string{
		`\bnon sono un robot\b`,
		`\b(captcha|recaptcha)\b.{0,30}\b(non valido|errato|obbligatorio)\b`,
		`\b(completa|risolvi|verifica) il (captcha|recaptcha)\b`}},
	{KindMFAInvalid, "it", false, []string{
		`\bcodice( di verifica| di sicurezza| otp)?\b.{0,20}\b(non valido|errato|scaduto|non corretto)\b`}},
	{KindSessionExpired, "it", false, []string{
		`\bsessione\b.{0,20}\b(scaduta|terminata)\b`,
		`\b(effettua|esegui) (nuovamente|di nuovo) l'accesso\b`,
		`\baccedi (di nuovo|nuovamente)\b`}},
	{KindLoginFailed, "it", false, []string{
		`\b(accesso|login|autenticazione)\b.{0,10}\b(non riuscito|non riuscita|fallito|fallita)\b`,
		`\bimpossibile (accedere|effettuare l'accesso|eseguire l'accesso)\b`,
		`\berrore (di |durante l'|nell')?(accesso|autenticazione|login)\b`}},
	{KindLoginFailed, "it", true, []string{`\b(accesso negato|non autorizzato)\b`}},
	{KindMFARequired, "it", false, []string{
		`\b(inserisci|immetti|digita|inserire) (il )?codice\b`,
		`\bti abbiamo inviato (un|il) (codice|link)\b`,
		`\b(verifica|autenticazione) (in|a) due (passaggi|fattori)\b`}},

	// Portuguese.
	{KindWrongCredentials, "pt", false, []string{
		`\b(usuário|senha|e-?mail|credenciais|palavra-passe|dados de acesso|login|utilizador|cpf)\b.{0,50}\b(inválid[oa]s?|incorret[oa]s?|errad[oa]s?|não (é|são|está|estão) (corret|válid)[oa]s?|não conferem)\b`}},
	{KindUnknownAccount, "pt", false, []string{
		`\b(conta|usuário|utilizador|e-?mail)\b.{0,20}\b(não encontrad[oa]|não existe|não cadastrad[oa]|não registad[oa]|não registrad[oa])\b`,
		`\bnenhuma conta\b.{0,40}\b(encontrada|associada|cadastrada)\b`}},
	{KindAccountLocked, "pt", false, []string{
		`\b(conta|usuário|acesso)\b.{0,40}\b(foi|está|se encontra)\b.{0,20}\b(bloquead[oa]|suspens[oa]|desativad[oa]|desabilitad[oa])\b`,
		`\bconta (bloqueada|suspensa|desativada)\b`}},
	{KindTooManyAttempts, "pt", false, []string{`\b(muitas|demasiadas) tentativas\b`}},
	{KindCaptcha, "pt", false, []string{
		`\bnão sou um robô\b`,
		`\b(captcha|recaptcha)\b.{0,30}\b(inválido|incorreto|obrigatório)\b`,
		`\b(resolva|complete|confirme) o (captcha|recaptcha)\b`}},
	{KindMFAInvalid, "pt", false, []string{
		`\bcódigo( de verificação| de segurança)?\b.{0,20}\b(inválido|incorreto|expirado|errado)\b`}},
	{KindSessionExpired, "pt", false, []string{
		`\bsessão\b.{0,20}\b(expirou|expirada|terminou|encerrada)\b`,
		`\b(faça|efetue) (o )?login novamente\b`,
		`\b(inicie sessão|entre) novamente\b`}},
	{KindLoginFailed, "pt", false, []string{
		`\bfalha (no|ao fazer|na|ao) (login|autenticação|início de sessão|entrar|acesso)\b`,
		`\bnão foi possível (fazer (o )?login|entrar|iniciar (a )?sessão|autenticar|acessar)\b`,
		`\berro (ao|de|no) (fazer )?(login|entrar|autenticação|iniciar sessão)\b`}},
	{KindLoginFailed, "pt", true, []string{`\b(acesso negado|não autorizado)\b`}},
	{KindMFARequired, "pt", false, []string{
		`\b(digite|insira|informe|introduza) o código\b`,
		`\b(enviamos|te enviamos|lhe enviamos) um (código|link)\b`,
		`\b(verificação|autenticação) (em duas etapas|de dois fatores|em dois passos|de dois passos)\b`}},

	// Russian.
	{KindWrongCredentials, "ru", false, []string{
		`\b(неверн|неправильн|некорректн|ошибочн)[а-я]{0,3} (логин|пароль|имя пользователя|имя|e-?mail|email|адрес|почта|данные|учетные данные|номер|пин-код|код доступа)`,
		`\b(пароль|логин|данные|учетные данные)\b.{0,30}\b(неверен|неверны|неверный|неверно|не подходит|не совпадает|неправильный|неправильно)\b`,
		`\bпроверьте (логин|пароль|правильность|введенные данные)`}},
	{KindUnknownAccount, "ru", false, []string{
		`\b(пользователь|аккаунт|учетная запись|логин)\b.{0,20}\b(не найден[ао]?|не существует|не зарегистрирован[ао]?)\b`}},
	{KindAccountLocked, "ru", false, []string{
		`\b(аккаунт|учетная запись|пользователь|профиль|доступ)\b.{0,30}\b(временно )?(заблокирован|отключен|приостановлен|деактивирован)[аоы]?\b`}},
	{KindTooManyAttempts, "ru", false, []string{`\bслишком много (попыток|запросов|неудачных попыток)\b`}},
	{KindCaptcha, "ru", false, []string{
		`\bя не робот\b`,
		`\bвведите (код с картинки|символы с картинки|символы с изображения|капчу)\b`,
		`\b(капча|captcha|код с картинки)\b.{0,30}\b(неверн|введите|обязательн|не пройдена)`,
		`\bподтвердите что вы не робот\b`}},
	{KindMFAInvalid, "ru", false, []string{
		`\b(неверный|неправильный) код\b`,
		`\bкод\b.{0,20}\b(неверен|недействителен|устарел|истек)\b`}},
	{KindSessionExpired, "ru", false, []string{
		`\bсесси[яи]\b.{0,20}\b(истекла|завершена|устарела)\b`,
		`\bсрок (действия )?сессии истек\b`,
		`\b(войдите|авторизуйтесь) (снова|повторно|заново|еще раз)\b`,
		`\bповторно войдите\b`}},
	{KindLoginFailed, "ru", false, []string{
		`\bошибка (входа|авторизации|аутентификации)\b`,
		`\bне удалось (войти|авторизоваться|выполнить вход)\b`,
		`\bвход не выполнен\b`,
		`\b(авторизация|аутентификация) не (пройдена|удалась)\b`}},
	{KindLoginFailed, "ru", true, []string{`\b(доступ запрещен|не авторизован)\b`}},
	{KindMFARequired, "ru", false, []string{
		`\bвведите (код|одноразовый код|код подтверждения|код из смс|код из sms)\b`,
		`\b(мы )?отправили (вам )?(код|смс|sms|ссылку)\b`,
		`\b(двухфакторн|двухэтапн)[а-я]* (аутентификац|проверк|авторизац)`}},

	// Dutch.
	{KindWrongCredentials, "nl", false, []string{
		`\b(onjuist|onjuiste|ongeldig|ongeldige|verkeerd|verkeerde|incorrect|incorrecte)\b.{0,30}\b(gebruikersnaam|wachtwoord|e-mailadres|emailadres|inloggegevens|e-mail|combinatie|pincode)\b`,
		`\b(gebruikersnaam|wachtwoord|e-mailadres|emailadres|inloggegevens|combinatie|gegevens)\b.{0,50}\b(is |zijn )?(onjuist|ongeldig|niet juist|niet correct|verkeerd|incorrect)\b`}},
	{KindUnknownAccount, "nl", false, []string{
		`\b(account|gebruiker|e-mailadres)\b.{0,20}\b(niet gevonden|bestaat niet|is niet bekend|onbekend|niet geregistreerd)\b`,
		`\bgeen account\b.{0,30}\b(gevonden|gekoppeld|bekend)\b`}},
	{KindAccountLocked, "nl", false, []string{
		`\b(account|gebruiker|toegang)\b.{0,30}\b(is|werd)\b.{0,20}\b(geblokkeerd|vergrendeld|gedeactiveerd|opgeschort|uitgeschakeld)\b`,
		`\baccount (geblokkeerd|vergrendeld)\b`}},
	{KindTooManyAttempts, "nl", false, []string{`\b(te veel|teveel)\b.{0,20}\b(pogingen|inlogpogingen|verzoeken)\b`}},
	{KindCaptcha, "nl", false, []string{
		`\bik ben geen robot\b`,
		`\b(captcha|recaptcha)\b.{0,30}\b(ongeldig|onjuist|verplicht)\b`,
		`\bbevestig dat (je|u) geen robot bent\b`}},
	{KindMFAInvalid, "nl", false, []string{
		`\b(verificatiecode|beveiligingscode|code)\b.{0,20}\b(is )?(onjuist|ongeldig|verlopen|verkeerd)\b`}},
	{KindSessionExpired, "nl", false, []string{
		`\bsessie\b.{0,20}\b(verlopen|beëindigd)\b`,
		`\blog (opnieuw|nogmaals) in\b`,
		`\bopnieuw (inloggen|aanmelden)\b`,
		`\b(je bent|u bent) automatisch uitgelogd\b`}},
	{KindLoginFailed, "nl", false, []string{
		`\b(inloggen|aanmelden|login|authenticatie)\b.{0,10}\b(mislukt|niet gelukt)\b`,
		`\b(we|wij) konden (je|u) niet (aanmelden|inloggen)\b`}},
	{KindLoginFailed, "nl", true, []string{`\b(toegang geweigerd|niet geautoriseerd|geen toegang)\b`}},
	{KindMFARequired, "nl", false, []string{
		`\b(voer|vul) (de |je |uw )?(verificatiecode|beveiligingscode|code)\b.{0,30}\bin\b`,
		`\bwe hebben (je |u )?een (code|verificatiecode|link)\b`,
		`\b(tweestapsverificatie|tweefactorauthenticatie|twee-factor-authenticatie|tweestaps-verificatie)\b`}},

	// Japanese: no spaces between words, so no \b.
	{KindWrongCredentials, "ja", false, []string{
		`(パスワード|メールアドレス|ユーザー名|ユーザーid|ログインid|id|アカウント名|認証情報|暗証番号).{0,20}(正しくありません|間違っています|違います|無効です|一致しません|誤りがあります|間違いがあります)`}},
	{KindUnknownAccount, "ja", false, []string{
		`(アカウント|ユーザー|メールアドレス)(が|は)(見つかりません|存在しません|登録されていません)`}},
	{KindAccountLocked, "ja", false, []string{
		`(アカウント|ユーザー|id)(が|は)?.{0,10}(ロックされ|停止され|無効化され|凍結され)(ました|ています|ている)`}},
	{KindTooManyAttempts, "ja", false, []string{
		`(試行回数|ログイン試行|失敗回数|ログイン回数)(が|の).{0,10}(上限|多すぎ|超え)`, `回数が多すぎ`}},
	{KindCaptcha, "ja", false, []string{
		`私はロボットではありません`,
		`(画像認証|キャプチャ|captcha|recaptcha).{0,15}(正しくありません|失敗|確認してください)`,
		`ロボットでないことを確認`}},
	{KindMFAInvalid, "ja", false, []string{
		`(確認コード|認証コード|セキュリティコード|ワンタイムパスワード|コード)(が|は)(正しくありません|無効|間違って|期限切れ)`}},
	{KindSessionExpired, "ja", false, []string{
		`セッション.{0,10}(有効期限が切れ|タイムアウト|切れました)`,
		`(再度|もう一度|再)ログインしてください`, `ログインし直してください`}},
	{KindLoginFailed, "ja", false, []string{
		`(ログイン|サインイン|認証)に失敗`, `(ログイン|サインイン)できませんでした`}},
	{KindLoginFailed, "ja", true, []string{`アクセスが拒否`, `権限がありません`}},
	{KindMFARequired, "ja", false, []string{
		`(確認コード|認証コード|セキュリティコード|ワンタイムパスワード|ワンタイムコード|検証コード).{0,15}(入力してください|を入力|送信しました|を送信)`,
		`(2段階認証|二段階認証|2要素認証|二要素認証|多要素認証)`}},

	// Chinese, simplified and traditional.
	{KindWrongCredentials, "zh", false, []string{
		`(用户名|用戶名|密码|密碼|账号|帳號|账户|帳戶|邮箱|郵箱|手机号|手機號|登录名|登錄名|用户|用戶).{0,10}(错误|錯誤|不正确|不正確|无效|無效|有误|有誤|不匹配|不符)`}},
	{KindUnknownAccount, "zh", false, []string{`(用户|用戶|账号|帳號|账户|帳戶)(不存在|未注册|未註冊|尚未注册)`}},
	{KindAccountLocked, "zh", false, []string{
		`(账号|帳號|账户|帳戶|用户|用戶).{0,6}(已被|已经被|已經被|被)?(锁定|鎖定|冻结|凍結|禁用|停用)`}},
	{KindTooManyAttempts, "zh", false, []string{
		`(次数|次數)(过多|過多|已达上限|已達上限|太多)`, `(过于|過於)(频繁|頻繁)`}},
	{KindCaptcha, "zh", false, []string{
		`我不是(机器人|機器人)`,
		`(请|請)(完成|进行|進行)(安全|人机|人機)(验证|驗證)`,
		`(图形验证码|圖形驗證碼|图片验证码|滑块验证|拼图验证).{0,10}(错误|錯誤|失败|失敗)`}},
	{KindMFAInvalid, "zh", false, []string{
		`(验证码|驗證碼|动态码|動態碼|校验码|校驗碼)(错误|錯誤|不正确|不正確|无效|無效|已过期|已過期|已失效)`}},
	{KindSessionExpired, "zh", false, []string{
		`(会话|會話|登录|登錄|登入)(已)?(过期|過期|超时|超時|失效)`, `(请|請)重新(登录|登錄|登入)`}},
	{KindLoginFailed, "zh", false, []string{
		`(登录|登錄|登入)(失败|失敗|出错|出錯|未成功)`, `(认证|認證|验证|驗證)(失败|失敗)`,
		`(无法|無法)(登录|登錄|登入)`}},
	{KindLoginFailed, "zh", true, []string{`(访问被拒绝|訪問被拒絕|存取遭拒|未授权|未授權|无权访问)`}},
	{KindMFARequired, "zh", false, []string{
		`(验证码|驗證碼|动态码|動態碼)(已发送|已發送|已经发送|已經發送)`,
		`(双重|雙重|两步|兩步|二次|双因素|雙因素)(验证|驗證|认证|認證)`}},
}

// markers are words frequent in one language and rare in the others it shares message
// patterns with ("usuario … inválidos" is Spanish and Portuguese): when rules of several
// languages match a sentence, the language with the most of its markers in it wins.
var markers = map[string]*regexp.Regexp{
	"en": markerSet(`the`, `your`, `you`, `or`, `and`, `is`, `was`, `has`, `been`, `please`, `try`, `again`, `we`),
	"de": markerSet(`der`, `die`, `das`, `ihr`, `ihre`, `oder`, `und`, `ist`, `wurde`, `bitte`, `sie`, `nicht`),
	"fr": markerSet(`le`, `la`, `les`, `votre`, `vos`, `ou`, `et`, `est`, `pas`, `veuillez`, `vous`, `de`),
	"es": markerSet(`el`, `los`, `las`, `tu`, `su`, `o`, `y`, `es`, `ha`, `contraseña`, `cuenta`, `sesión`, `una`),
	"it": markerSet(`il`, `gli`, `tuo`, `tua`, `o`, `e`, `è`, `stato`, `stata`, `non`, `riprova`, `di`),
	"pt": markerSet(`ou`, `senha`, `não`, `você`, `seu`, `sua`, `foi`, `do`, `da`, `em`, `uma`, `conta`, `sessão`),
	"nl": markerSet(`de`, `het`, `een`, `uw`, `je`, `of`, `en`, `is`, `niet`, `opnieuw`, `wachtwoord`),
}

func markerSet(words ...string) *regexp.Regexp {
	return regexp.MustCompile(foldPattern(`\b(` + strings.Join(words, "|") + `)\b`))
}

// markerCount counts the markers of lang in a folded sentence; matches of the words
// consume their spaces, so the sentence is searched with its spaces doubled.
func markerCount(lang, folded string) int {
	m := markers[lang]
	if m == nil {
		return 0
	}
	return len(m.FindAllStringIndex(strings.ReplaceAll(folded, " ", "  "), -1))
}

// ruleSet is the rules and the index that finds those worth running on a sentence, built on
// first use: parsing, indexing and compiling a few hundred case-folded patterns takes tens of
// milliseconds, which a function's cold start should not pay when no task meets a login page.
var ruleSet = sync.OnceValues(func() ([]rule, literalIndex) {
	rs := buildRules()
	return rs, newLiteralIndex(rs)
})

// hints are what makes a sentence that matches a rule a hint, a rule of the site, a help
// text or a question rather than a message about this attempt: conditionals ("if your
// password is incorrect…"), the future ("will be locked"), password policies, how-to
// wording, "protected by reCAPTCHA".
var hints = regexp.MustCompile(foldPattern(strings.Join([]string{
	`\bif\b`, `\bwill (be|get)\b`, `\b(may|might|can|could) (be|get) (locked|blocked|disabled|suspended)\b`,
	`\bmust (contain|be at least|include|have|be between)\b`, `\bat least \d`, `\bcase[- ]sensitive\b`,
	`\bprotected by\b`, `\bhow to\b`, `\bwhat to do\b`, `\blearn (how|more about)\b`, `\b(avoid|prevent)\b`,
	`\b(set up|enable|turn on)\b`,
	`\b(wenn|falls|sofern)\b`, `\bwird\b.{0,30}\b(gesperrt|deaktiviert|blockiert)\b`, `\bmuss (mindestens|enthalten)\b`,
	`\bmindestens \d`, `\bgeschützt durch\b`, `\bwas tun\b`, `\bvermeiden\b`,
	`\bsi (vous|votre|tu|ton|ta|le|la|les|l'|un|une|vos)\b`, `\bsera\b`, `\bdoit (contenir|comporter|avoir)\b`,
	`\bau moins \d`, `\bprotégé par\b`, `\bcomment\b`, `\bque faire\b`, `\béviter\b`,
	`\bsi (usted|tu|no|has|olvidaste|introduces|el|su)\b`, `\bdebe (contener|tener)\b`, `\bal menos \d`,
	`\bprotegido por\b`, `\bcómo\b`, `\bqué hacer\b`, `\bevitar\b`,
	`\bse (hai|il|non|inserisci|l'|i|le)\b`, `\bverrà\b`, `\bdeve (contenere|conter|ter)\b`, `\balmeno \d`,
	`\bprotetto da\b`, `\bcome (reimpostare|sbloccare|recuperare|evitare)\b`, `\bcosa fare\b`,
	`\bse (você|o|nao|esqueceu|os|as)\b`, `\bcaso\b`, `\bpelo menos \d`, `\bno mínimo \d`, `\bo que fazer\b`,
	`\bесли\b`, `\bбудет\b`, `\bдолжен\b`, `\bне менее \d`, `\bминимум \d`, `\bкак\b`, `\bчто делать\b`,
	`\b(als|indien|wanneer) (u|je|jouw|uw|het|de)\b`, `\bwordt\b.{0,30}\b(geblokkeerd|vergrendeld)\b`,
	`\bmoet (bevatten|bestaan)\b`, `\bminimaal \d`, `\bten minste \d`, `\bhoe\b`, `\bwat te doen\b`,
	`場合`, `ロックされます`, `文字以上`, `方法`, `忘れ`, `ご注意`,
	`如果`, `若您`, `忘记`, `忘記`, `将被`, `將被`, `至少`, `如何`, `怎么办`,
}, "|")))
