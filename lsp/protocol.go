package lsp

import "encoding/json"

// The LSP 3.17 messages the server reads and writes, only the fields it
// uses (a client's other fields are ignored when decoding).

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	RootURI          string            `json:"rootUri"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
	Capabilities     struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Workspace struct {
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

type textDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int   `json:"version,omitempty"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Range *lspRange `json:"range"`
	Text  string    `json:"text"`
}

type didChangeParams struct {
	TextDocument   textDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange        `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"` // fileCreated, fileChanged, fileDeleted
}

const (
	fileCreated = iota + 1
	fileChanged
	fileDeleted
)

// A FileSystemWatcher's kind is a bit set of the events it reports (LSP
// 3.17 WatchKind: create 1, change 2, delete 4); without one it reports
// all three.
const (
	watchCreate = 1
	watchDelete = 4
)

type didChangeWatchedFilesParams struct {
	Changes []fileEvent `json:"changes"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

// diagnostic is an LSP Diagnostic; data carries what a code action needs
// back (the rule and the 1-based line), as clients return it untouched.
type diagnostic struct {
	Range              lspRange         `json:"range"`
	Severity           int              `json:"severity"`
	Code               string           `json:"code"`
	CodeDescription    *codeDescription `json:"codeDescription,omitempty"`
	Source             string           `json:"source"`
	Message            string           `json:"message"`
	RelatedInformation []relatedInfo    `json:"relatedInformation,omitempty"`
	Data               *diagnosticData  `json:"data,omitempty"`
}

type codeDescription struct {
	Href string `json:"href"`
}

type relatedInfo struct {
	Location location `json:"location"`
	Message  string   `json:"message"`
}

type diagnosticData struct {
	Rule   string `json:"rule"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        lspRange               `json:"range"`
	Context      struct {
		Diagnostics []diagnostic `json:"diagnostics"`
		Only        []string     `json:"only"`
	} `json:"context"`
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

type workspaceEdit struct {
	Changes map[string][]textEdit `json:"changes"`
}

type codeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *workspaceEdit `json:"edit,omitempty"`
}

type logMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// LSP's DiagnosticSeverity and MessageType.
const (
	severityError       = 1
	severityWarning     = 2
	severityInformation = 3

	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
	messageLog     = 4
)

// Error codes LSP adds to JSON-RPC's.
const (
	codeServerNotInitialized = -32002
	codeRequestCancelled     = -32800
)
