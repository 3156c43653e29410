package rules

import "github.com/webhooklint/webhooklint/diag"

// InputFileRule names the finding on a path that cannot be read as a file.
const InputFileRule = "input-file"

func init() {
	register(&Rule{
		Name:     InputFileRule,
		Summary:  "a path among the inputs cannot be read as a file (a named pipe, socket or device, a link loop, no permission), so nothing in it was linted",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "A folder walk or a glob can meet paths that are not regular files: a named pipe (opening one blocks " +
				"until something writes to it, which would hang the run), a socket or a device, a symbolic link that " +
				"loops or points nowhere, a file or folder the user may not read. None of them can be linted, and " +
				"stopping the whole run for one of them would hide every other file's findings. So each is reported once, " +
				"at the path, without being opened, and the run goes on. A pipe named explicitly on the command line " +
				"(`webhooklint <(kustomize build config/default)`) is read, since that is what was asked.",
			Fix: "Replace the path with the regular file it stands for, fix the link, or give read permission; " +
				"exclude it with the configuration's ignore globs if it is not a manifest.",
			Sources: []string{
				"https://man7.org/linux/man-pages/man7/fifo.7.html",
				"https://man7.org/linux/man-pages/man7/path_resolution.7.html",
			},
		},
	})
}
