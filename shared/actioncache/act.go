package actioncache

// Act is an action as the cache sees it, whatever the engine's grammar: the engine turns its
// decided action into an Act for Record, and the Act that Lookup offers back into its action.
type Act struct {
	// Name is the action's or tool's name (a "wait" may be skipped on replay).
	Name string
	// Form is the action in the engine's own notation with everything but its element and its
	// answer: two steps with one Form on one target are the same step.
	Form string
	// Element is the id, in the pagemodel.Page the engine gave Open, of the element it acts on.
	Element    int
	HasElement bool
	// Typed is the text it types ("" for none): a value the task read earlier must not be replayed.
	// In an Act that Lookup offers, Typed is set only for a value read again from the task's
	// text (a password the task gives, typed into a secret field): the engine puts it into Form.
	Typed string
	// Blank is Form with its typed text left empty, set with Typed: what the cache may keep of
	// an action whose value it must not (Part.FromTask).
	Blank string
	// Masked says the engine judged Typed a secret (its own record of it is masked): the cache
	// never keeps it, whatever the page view says of the field.
	Masked bool
	// Secret is the name of the secret it types (a named secret, whose value only the client
	// holds): the name may be replayed, a typed value in a secret field never is.
	Secret string
	// Answer is the result of an action that completes the task (Kind Completes).
	Answer string
	Kind   Kind
	// Rest are the actions that follow this one in a batch, all decided on the same page, in
	// order; nil for a single action.
	Rest []Act
}

// Kind is what an action does to its task.
type Kind int

// Kinds of actions.
const (
	// Continues is an action on the page.
	Continues Kind = iota
	// Completes ends the task with success, possibly with an answer.
	Completes
	// AsksUser waits for the user.
	AsksUser
	// Fails gives up.
	Fails
	// Server runs on the server (a search, an extraction).
	Server
)
