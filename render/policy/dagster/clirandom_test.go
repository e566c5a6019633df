package dagster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestRandomCommandLinesAsDagster is TestCommandLinesAsDagster on command
// lines made at random from the click tables: both commands, every
// spelling of every option (long, short, glued, --opt=value), values of
// the right and the wrong type, repeats, unknown options, positionals,
// `--`, the split between command and args, and the options' own and
// auto env names. Dagster's click is the reference for each.
// CODELOC_CLIREF_RANDOM sets how many (default 24, about 0.8 s of Python
// each), CODELOC_CLIREF_SEED the seed (default 1; the failure names it).
func TestRandomCommandLinesAsDagster(t *testing.T) {
	n, seed := envInt(t, "CODELOC_CLIREF_RANDOM", 24), envInt(t, "CODELOC_CLIREF_SEED", 1)
	bin := fakeDagster(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 32))
	var accepted, refused atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for i := range n {
			ct := randomContainer(rng)
			t.Run(fmt.Sprintf("seed%d-%d", seed, i), func(t *testing.T) {
				t.Parallel()
				for _, r := range compareWithDagster(t, ct, bin) {
					if r.Refused {
						refused.Add(1)
					} else {
						accepted.Add(1)
					}
				}
			})
		}
	})
	// A generator whose lines click always refuses, or always accepts,
	// would prove little.
	t.Logf("click accepted %d command lines and refused %d", accepted.Load(), refused.Load())
	if n >= 10 && (accepted.Load() < int32(n)/5 || refused.Load() < int32(n)/5) {
		t.Errorf("click accepted %d and refused %d of %d: the generator is lopsided", accepted.Load(), refused.Load(), n)
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// randomContainer is a container running one of cliCommands, exec form.
func randomContainer(rng *rand.Rand) *corev1.Container {
	cmd := cliCommands[rng.IntN(len(cliCommands))]
	words := []string{"dagster", cmd.words[0], cmd.words[1]}
	for range rng.IntN(7) {
		words = append(words, randomOption(rng, cmd)...)
	}
	split := 1 + rng.IntN(len(words))
	ct := &corev1.Container{Name: "c", Command: words[:split], Args: words[split:]}
	for range rng.IntN(4) {
		o := cmd.options[rng.IntN(len(cmd.options))]
		name := o.env
		if name == "" || rng.IntN(2) == 0 {
			name = autoEnvName(cmd, o)
		}
		ct.Env = append(ct.Env, corev1.EnvVar{Name: name, Value: randomValue(rng, o)})
	}
	return ct
}

// autoEnvName is the name click reads o from under the dagster group's
// auto_envvar_prefix: DAGSTER_CLI_<COMMAND>_<SUBCOMMAND>_<PARAM>.
func autoEnvName(cmd *cliCommand, o cliOption) string {
	return strings.ToUpper(strings.ReplaceAll(cliEnvPrefix+"_"+cmd.words[0]+"_"+cmd.words[1]+"_"+o.param, "-", "_"))
}

// randomOption is one option with its value, in one spelling, or
// something click refuses or reads otherwise.
func randomOption(rng *rand.Rand, cmd *cliCommand) []string {
	switch rng.IntN(20) {
	case 0:
		return []string{"--no-such-option"}
	case 1:
		return []string{"positional"}
	case 2:
		return []string{"--"}
	}
	o := cmd.options[rng.IntN(len(cmd.options))]
	if o.param == paramHelp && rng.IntN(4) > 0 {
		o = cmd.options[0] // --help ends the parse: rarely
	}
	spelling := o.opts[rng.IntN(len(o.opts))]
	if o.flag {
		if rng.IntN(6) == 0 {
			return []string{spelling + "=1"}
		}
		return []string{spelling}
	}
	v := randomValue(rng, o)
	switch {
	case rng.IntN(3) == 0 && strings.HasPrefix(spelling, "--"):
		return []string{spelling + "=" + v}
	case rng.IntN(3) == 0 && !strings.HasPrefix(spelling, "--"):
		return []string{spelling + v}
	case rng.IntN(12) == 0:
		return []string{spelling} // its value missing, or the next word
	}
	return []string{spelling, v}
}

// randomValue is a value of o's kind, or one click refuses.
func randomValue(rng *rand.Rand, o cliOption) string {
	var pool []string
	switch {
	case o.kind == "int":
		pool = []string{"3030", "4000", "+7", " 42 ", "3_030", "0x10", "08", "80a", "", "-1"}
	case o.kind == "bool":
		pool = []string{"1", "true", " Yes", "off", "maybe", ""}
	case strings.HasPrefix(o.kind, "choice:"):
		choices := strings.Split(strings.TrimPrefix(o.kind, "choice:"), ",")
		pool = append(choices, strings.ToUpper(choices[0]), "nope")
	default:
		pool = []string{"0.0.0.0", "a b", "-p", "", "{}", `{"k8s": {"namespace": "x"}}`, "registry:80/img:1", "x=y", "$(HOME)"}
	}
	return pool[rng.IntN(len(pool))]
}
