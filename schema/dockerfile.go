package schema

import (
	"fmt"
	"strings"
	"unicode"
)

// SupportedDockerfileInstructions lists the Dockerfile instructions a
// dockerfile step may hold, upper case, sorted. They change the image's
// file system (RUN) or its config; the others are refused because they read
// files the content hash does not cover (COPY, ADD), start another stage
// (FROM), or change how later steps are built (ARG, SHELL, ONBUILD).
var SupportedDockerfileInstructions = []string{
	"CMD", "ENTRYPOINT", "ENV", "EXPOSE", "HEALTHCHECK", "LABEL",
	"RUN", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}

// DockerfileInstruction returns the instruction of one dockerfile step
// command, upper case ("EXPOSE" for "expose 8080"), and the byte offset
// where it starts in cmd; "" when cmd holds no instruction.
func DockerfileInstruction(cmd string) (string, int) {
	start := strings.IndexFunc(cmd, func(r rune) bool { return !unicode.IsSpace(r) })
	if start < 0 {
		return "", 0
	}
	end := strings.IndexFunc(cmd[start:], unicode.IsSpace)
	if end < 0 {
		end = len(cmd) - start
	}
	return strings.ToUpper(cmd[start : start+end]), start
}

// DockerfileInstructionSupported reports whether a dockerfile step may use
// the instruction (any case).
func DockerfileInstructionSupported(instr string) bool {
	instr = strings.ToUpper(instr)
	for _, s := range SupportedDockerfileInstructions {
		if s == instr {
			return true
		}
	}
	return false
}

// CheckDockerfileCommand returns why a dockerfile step command cannot be
// used, or nil: an instruction outside SupportedDockerfileInstructions. The
// rest of the command is BuildKit's Dockerfile syntax, which the compiler
// checks with BuildKit's own parser (compiler/imagerules.go), not here:
// schema uses the standard library only.
func CheckDockerfileCommand(cmd string) error {
	instr, _ := DockerfileInstruction(cmd)
	if instr == "" {
		return nil
	}
	if !DockerfileInstructionSupported(instr) {
		return fmt.Errorf("the Dockerfile instruction %s is not supported in a dockerfile step", instr)
	}
	return nil
}
