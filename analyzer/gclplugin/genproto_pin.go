//go:build webhooklint_genproto_pin

package gclplugin

// This file is never compiled; it exists for go mod tidy, which reads
// files of every build tag. It keeps go.mod requiring a current
// google.golang.org/genproto, one from after googleapis/api and
// googleapis/rpc moved into their own modules.
//
// Why: golangci-lint's module graph holds a 2022 genproto (through an old
// viper), which still contains those packages. Built together with this
// plugin, whose dependencies (cel-go, grpc via k8s.io/apiserver) import
// them from the new modules, `golangci-lint custom` fails in go mod tidy
// with "ambiguous import ... found in multiple modules". Requiring a
// current genproto makes minimal version selection pick one without them.
import _ "google.golang.org/genproto/protobuf/field_mask"
