# shellcheck shell=bash
# variant.sh: sourced by the rig's shell stages (matrix.sh, robustness.sh).
# A variant is a data file, kernel/variants/NAME.variant: "key = value"
# lines and comments (docs/architecture.md, "add a variant"). TOP must be set.

# variant_field NAME KEY: the value of KEY in variant NAME, empty if absent.
variant_field() {
	sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$TOP/kernel/variants/$1.variant"
}
