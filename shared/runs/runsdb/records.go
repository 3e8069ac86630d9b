package runsdb

import (
	"time"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/runs"
)

// The records of the domain values a run header and a history entry hold, with the attribute
// names they are stored under (layout_test.go pins them). Where a record has the fields of its
// domain type, it is converted with a plain type conversion, which stops compiling when the
// domain type gains a field the record lacks.

type snapshotRecord struct {
	URL         string          `dynamodbav:"url"`
	Title       string          `dynamodbav:"title"`
	VisibleText string          `dynamodbav:"visibleText"`
	Elements    []elementRecord `dynamodbav:"elements"`
	Timestamp   int64           `dynamodbav:"timestamp"`
}

func snapshotOf(s runs.Snapshot) snapshotRecord {
	return snapshotRecord{URL: s.URL, Title: s.Title, VisibleText: s.VisibleText, Elements: dynamo.Convert(s.Elements, elementOf), Timestamp: s.Timestamp}
}

func (r snapshotRecord) snapshot() runs.Snapshot {
	return runs.Snapshot{URL: r.URL, Title: r.Title, VisibleText: r.VisibleText, Elements: dynamo.Convert(r.Elements, elementRecord.element), Timestamp: r.Timestamp}
}

type elementRecord struct {
	ID          string      `dynamodbav:"id"`
	Tag         string      `dynamodbav:"tag"`
	Role        string      `dynamodbav:"role,omitempty"`
	Text        string      `dynamodbav:"text,omitempty"`
	AriaLabel   string      `dynamodbav:"ariaLabel,omitempty"`
	Placeholder string      `dynamodbav:"placeholder,omitempty"`
	Type        string      `dynamodbav:"type,omitempty"`
	Value       string      `dynamodbav:"value,omitempty"`
	Href        string      `dynamodbav:"href,omitempty"`
	Disabled    bool        `dynamodbav:"disabled,omitempty"`
	Name        string      `dynamodbav:"name,omitempty"`
	BBox        *bboxRecord `dynamodbav:"bbox,omitempty"`
	Label       string      `dynamodbav:"label,omitempty"`
	Checked     *bool       `dynamodbav:"checked,omitempty"`
	Selected    *bool       `dynamodbav:"selected,omitempty"`
	Pressed     *bool       `dynamodbav:"pressed,omitempty"`
	Expanded    *bool       `dynamodbav:"expanded,omitempty"`
	Options     []string    `dynamodbav:"options,omitempty"`
	Context     string      `dynamodbav:"context,omitempty"`
	// What tells a secret field in any language (trust.SecretFields).
	Autocomplete string `dynamodbav:"autocomplete,omitempty"`
	InputMode    string `dynamodbav:"inputMode,omitempty"`
	MaxLength    int    `dynamodbav:"maxLength,omitempty"`
	Masked       bool   `dynamodbav:"masked,omitempty"`
}

func elementOf(e runs.Element) elementRecord {
	return elementRecord{
		ID: e.ID, Tag: e.Tag, Role: e.Role, Text: e.Text, AriaLabel: e.AriaLabel, Placeholder: e.Placeholder, Type: e.Type,
		Value: e.Value, Href: e.Href, Disabled: e.Disabled, Name: e.Name,
		BBox:  dynamo.Optional(e.BBox, func(b runs.BBox) bboxRecord { return bboxRecord(b) }),
		Label: e.Label, Checked: e.Checked, Selected: e.Selected, Pressed: e.Pressed, Expanded: e.Expanded, Options: e.Options, Context: e.Context,
		Autocomplete: e.Autocomplete, InputMode: e.InputMode, MaxLength: e.MaxLength, Masked: e.Masked,
	}
}

func (r elementRecord) element() runs.Element {
	return runs.Element{
		ID: r.ID, Tag: r.Tag, Role: r.Role, Text: r.Text, AriaLabel: r.AriaLabel, Placeholder: r.Placeholder, Type: r.Type,
		Value: r.Value, Href: r.Href, Disabled: r.Disabled, Name: r.Name,
		BBox:  dynamo.Optional(r.BBox, func(b bboxRecord) runs.BBox { return runs.BBox(b) }),
		Label: r.Label, Checked: r.Checked, Selected: r.Selected, Pressed: r.Pressed, Expanded: r.Expanded, Options: r.Options, Context: r.Context,
		Autocomplete: r.Autocomplete, InputMode: r.InputMode, MaxLength: r.MaxLength, Masked: r.Masked,
	}
}

type bboxRecord struct {
	X      float64 `dynamodbav:"x"`
	Y      float64 `dynamodbav:"y"`
	Width  float64 `dynamodbav:"width"`
	Height float64 `dynamodbav:"height"`
}

type toolRecord struct {
	Name   string  `dynamodbav:"name"`
	ID     string  `dynamodbav:"id,omitempty"`
	URL    string  `dynamodbav:"url,omitempty"`
	Text   string  `dynamodbav:"text,omitempty"`
	Secret string  `dynamodbav:"secret,omitempty"`
	Submit bool    `dynamodbav:"submit,omitempty"`
	DeltaY float64 `dynamodbav:"deltaY,omitempty"`
	Key    string  `dynamodbav:"key,omitempty"`
}

func toolOf(t runs.Tool) toolRecord       { return toolRecord(t) }
func (r toolRecord) tool() runs.Tool      { return runs.Tool(r) }
func toolsOf(ts []runs.Tool) []toolRecord { return dynamo.Convert(ts, toolOf) }
func tools(rs []toolRecord) []runs.Tool   { return dynamo.Convert(rs, toolRecord.tool) }

type resultRecord struct {
	Success bool           `dynamodbav:"success"`
	Message string         `dynamodbav:"message,omitempty"`
	Error   string         `dynamodbav:"error,omitempty"`
	Skipped bool           `dynamodbav:"skipped,omitempty"`
	Parts   []resultRecord `dynamodbav:"parts,omitempty"`
}

func resultOf(r runs.Result) resultRecord {
	return resultRecord{Success: r.Success, Message: r.Message, Error: r.Error, Skipped: r.Skipped, Parts: dynamo.Convert(r.Parts, resultOf)}
}

func (r resultRecord) result() runs.Result {
	return runs.Result{Success: r.Success, Message: r.Message, Error: r.Error, Skipped: r.Skipped, Parts: dynamo.Convert(r.Parts, resultRecord.result)}
}

type userAnswerRecord struct {
	Approved bool   `dynamodbav:"approved"`
	Text     string `dynamodbav:"text,omitempty"`
	UserID   string `dynamodbav:"userId,omitempty"`
}

func userAnswerOf(a runs.UserAnswer) userAnswerRecord  { return userAnswerRecord(a) }
func (r userAnswerRecord) userAnswer() runs.UserAnswer { return runs.UserAnswer(r) }

type usageRecord struct {
	PromptTokens     int `dynamodbav:"promptTokens"`
	CompletionTokens int `dynamodbav:"completionTokens"`
}

type reflectionRecord struct {
	StepNumber      int       `dynamodbav:"stepNumber"`
	StepsAnalyzed   int       `dynamodbav:"stepsAnalyzed"`
	Observes        int       `dynamodbav:"observes"`
	Errors          int       `dynamodbav:"errors"`
	Successes       int       `dynamodbav:"successes"`
	ActionDiversity float64   `dynamodbav:"actionDiversity"`
	Efficiency      string    `dynamodbav:"efficiency"`
	Issues          []string  `dynamodbav:"issues"`
	Suggestions     []string  `dynamodbav:"suggestions"`
	ShouldAdjust    bool      `dynamodbav:"shouldAdjust"`
	CreatedAt       time.Time `dynamodbav:"createdAt"`
}

func reflectionOf(r runs.Reflection) reflectionRecord {
	return reflectionRecord{
		StepNumber: r.StepNumber, StepsAnalyzed: r.StepsAnalyzed, Observes: r.Observes, Errors: r.Errors, Successes: r.Successes,
		ActionDiversity: r.ActionDiversity, Efficiency: string(r.Efficiency), Issues: r.Issues, Suggestions: r.Suggestions,
		ShouldAdjust: r.ShouldAdjust, CreatedAt: r.CreatedAt,
	}
}

func (r reflectionRecord) reflection() runs.Reflection {
	return runs.Reflection{
		StepNumber: r.StepNumber, StepsAnalyzed: r.StepsAnalyzed, Observes: r.Observes, Errors: r.Errors, Successes: r.Successes,
		ActionDiversity: r.ActionDiversity, Efficiency: runs.Efficiency(r.Efficiency), Issues: r.Issues, Suggestions: r.Suggestions,
		ShouldAdjust: r.ShouldAdjust, CreatedAt: r.CreatedAt,
	}
}
