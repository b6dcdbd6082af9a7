// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's evaluator: a timeout expression as written in a driver
 * ("( 5 * HZ )", "msecs_to_jiffies ( 500 )", "DEF_TIMEOUT") evaluated the
 * way a kernel built with a given HZ computes it, and whether HZ or
 * jiffies reach it at all. Identifiers go through a lookup (macros,
 * constants, locals); what cannot be known stays unknown, it never fails.
 * The conversions mirror include/linux/jiffies.h of 6.1 (docs/checker.md).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/checker.h"
#include "model/model.h"

#define MAX_DEPTH	8	/* macro inside macro inside ... */
#define MAX_NEST	256	/* parentheses, unary operators, ?: */
#define TOK_MAX		64

struct ev {
	const char *s;		/* the text being read */
	int hz;
	hzrig_expr_lookup lookup;
	void *ctx;
	int depth;
	int def;		/* id of the definition being read, -1: top */
	int nest;		/* levels of nesting so far (MAX_NEST) */
	char tok[TOK_MAX];	/* the current token */
	bool bad;
	bool too_deep;		/* bad because of MAX_NEST: said, not hidden */
	char *err;
	size_t errlen;
};

typedef struct hzrig_expr_val val;

static void fail(struct ev *e, const char *fmt, ...)
{
	va_list ap;

	if (e->bad)
		return;
	e->bad = true;
	va_start(ap, fmt);
	vsnprintf(e->err, e->errlen, fmt, ap);
	va_end(ap);
}

/* Read the next token into e->tok ("" at the end). */
static void next(struct ev *e)
{
	static const char *const two[] = { "<<", ">>", "<=", ">=", "==", "!=",
					   "&&", "||", "->", NULL };
	const char *s = e->s;
	size_t n = 0;
	int i;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		e->tok[0] = 0;
		e->s = s;
		return;
	}
	if (isalnum((unsigned char)*s) || *s == '_') {
		while ((isalnum((unsigned char)s[n]) || s[n] == '_') &&
		       n < TOK_MAX - 1)
			n++;
		if (isalnum((unsigned char)s[n]) || s[n] == '_')
			fail(e, "a name longer than %d characters", TOK_MAX - 1);
	} else {
		n = 1;
		for (i = 0; two[i]; i++)
			if (!strncmp(s, two[i], 2))
				n = 2;
	}
	memcpy(e->tok, s, n);
	e->tok[n] = 0;
	e->s = s + n;
}

static bool is(struct ev *e, const char *t)
{
	return !strcmp(e->tok, t);
}

static void expect(struct ev *e, const char *t)
{
	if (!is(e, t))
		fail(e, "expected '%s', found '%s'", t, e->tok[0] ? e->tok : "the end");
	else
		next(e);
}

static val unknown(void)
{
	return (val){ .known = false, .origin = -1 };
}

static val number(int64_t v)
{
	return (val){ .known = true, .v = v, .origin = -1 };
}

/* Combine the flags of two operands into @r. */
static val mix(val r, val a, val b)
{
	r.hz_based = a.hz_based || b.hz_based;
	r.runtime = a.runtime || b.runtime;
	r.origin = a.hz_based ? a.origin : b.hz_based ? b.origin : -1;
	if (!a.known || !b.known)
		r.known = false;
	return r;
}

static val cond(struct ev *e);

/* A literal: decimal, hex or octal with any U/L suffix. */
static val literal(struct ev *e)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(e->tok, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (*end || errno || v > INT64_MAX) {
		fail(e, "'%s' is not an integer literal", e->tok);
		return unknown();
	}
	next(e);
	return number((int64_t)v);
}

/* The arguments of a call, after its '(': up to 4 are kept. */
static int arguments(struct ev *e, val *a, int max)
{
	int n = 0;
	val v;

	if (is(e, ")")) {
		next(e);
		return 0;
	}
	for (;;) {
		v = cond(e);
		if (n < max)
			a[n] = v;
		n++;
		if (!is(e, ","))
			break;
		next(e);
	}
	expect(e, ")");
	return n;
}

/* (a + b - 1) / b for b > 0; false when the sum overflows. */
static bool div_up(int64_t a, int64_t b, int64_t *r)
{
	int64_t s;

	if (b <= 0 || __builtin_add_overflow(a, b - 1, &s))
		return false;
	*r = s / b;
	return true;
}

/*
 * include/linux/jiffies.h's conversions: to jiffies from a time in units
 * of 1/@per_s s (HZ reaches the result), or from jiffies back to time
 * (HZ no longer does). msecs_to_jiffies() is the model's, exactly.
 */
static const struct conversion {
	const char *name;
	int64_t per_s;
	bool to_jiffies;
} conversions[] = {
	{ "msecs_to_jiffies", 1000, true },
	{ "usecs_to_jiffies", 1000000, true },
	{ "nsecs_to_jiffies", 1000000000, true },
	{ "secs_to_jiffies", 1, true },
	{ "jiffies_to_msecs", 1000, false },
	{ "jiffies_to_usecs", 1000000, false },
};

static val convert(struct ev *e, const struct conversion *c, val x)
{
	val r = x;
	int64_t hz = e->hz;

	r.known = x.known && x.v >= 0 && x.v <= INT32_MAX;
	if (!c->to_jiffies) {
		/* back to time: whatever HZ did inside is undone */
		r.hz_based = false;
		r.origin = -1;
		r.v = r.known ? x.v * c->per_s / hz : 0;
		return r;
	}
	r.hz_based = true;
	r.origin = x.hz_based ? x.origin : e->def;
	if (!r.known)
		return r;
	if (c->per_s == 1000)
		r.v = (int64_t)hzrig_msecs_to_jiffies(e->hz, (int)x.v);
	else
		r.known = div_up(x.v * hz, c->per_s, &r.v);
	return r;
}

/* The kernel's conversion helpers and the min/max family, or unknown. */
static val call(struct ev *e, const char *fn)
{
	val a[4] = { unknown(), unknown(), unknown(), unknown() };
	val r = unknown();
	int n = arguments(e, a, 4), i;
	size_t k;

	for (i = 0; i < n && i < 4; i++)
		r = mix(r, r, a[i]);
	r.known = false;
	for (k = 0; n == 1 && k < sizeof(conversions) / sizeof(conversions[0]); k++)
		if (!strcmp(fn, conversions[k].name))
			return convert(e, &conversions[k], a[0]);
	if ((n == 2 || n == 3) && (!strcmp(fn, "min") || !strcmp(fn, "max") ||
				   !strcmp(fn, "min_t") || !strcmp(fn, "max_t"))) {
		val p = a[n - 2], q = a[n - 1];
		bool min = fn[1] == 'i';

		r.known = p.known && q.known;
		if (r.known)
			r.v = min == (p.v < q.v) ? p.v : q.v;
	} else if (n == 2 && !strcmp(fn, "DIV_ROUND_UP")) {
		r.known = a[0].known && a[1].known &&
			  div_up(a[0].v, a[1].v, &r.v);
	}
	return r;
}

/* A name: HZ, jiffies, a call, or what the lookup says it stands for. */
static val name(struct ev *e)
{
	char id[TOK_MAX];
	const char *text;
	struct ev sub;
	val r;
	int def = -1;

	snprintf(id, sizeof(id), "%s", e->tok);
	next(e);
	if (is(e, "(")) {
		next(e);
		return call(e, id);
	}
	if (!strcmp(id, "HZ")) {
		r = number(e->hz);
		r.hz_based = true;
		r.origin = e->def;
		return r;
	}
	if (!strcmp(id, "jiffies") || !strcmp(id, "jiffies_64")) {
		r = unknown();
		r.hz_based = r.runtime = true;
		r.origin = e->def;
		return r;
	}
	if (!e->lookup || e->depth >= MAX_DEPTH)
		return unknown();
	text = e->lookup(e->ctx, id, &def);
	if (!text)
		return unknown();
	sub = *e;
	sub.s = text;
	sub.depth = e->depth + 1;
	sub.def = def;
	sub.bad = false;
	next(&sub);
	r = cond(&sub);
	if (sub.too_deep)
		fail(e, "%s (in %s)", sub.err, id);
	e->too_deep |= sub.too_deep;
	if (sub.bad || sub.tok[0]) {
		/* a body that is no expression: not a value, not an error */
		r = unknown();
	}
	return r;
}

/* Is the token after '(' the start of a type name (a cast)? */
static bool type_word(const char *t)
{
	static const char *const words[] = {
		"int", "long", "short", "unsigned", "signed", "char", "const",
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "__u8",
		"__u16", "__u32", "__u64", "__s32", "size_t", "uint", "ulong",
		"__le16", "__le32", "bool", NULL };
	size_t n = strlen(t);
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(t, words[i]))
			return true;
	return n > 2 && !strcmp(t + n - 2, "_t");
}

static val unary_nested(struct ev *e);

/*
 * Every way an expression nests comes through here or cond(): bounded,
 * so that a hostile #define cannot take the stack.
 */
static bool enter(struct ev *e)
{
	if (e->nest >= MAX_NEST) {
		fail(e, "expression too deep: more than %d levels of nesting",
		     MAX_NEST);
		e->too_deep = true;
		return false;
	}
	e->nest++;
	return true;
}

static val unary(struct ev *e)
{
	val r;

	if (!enter(e))
		return unknown();
	r = unary_nested(e);
	e->nest--;
	return r;
}

static val unary_nested(struct ev *e)
{
	val r;

	if (is(e, "-") || is(e, "+") || is(e, "~") || is(e, "!")) {
		char op = e->tok[0];

		next(e);
		r = unary(e);
		if (r.known && op == '-')
			r.known = !__builtin_sub_overflow((int64_t)0, r.v, &r.v);
		else if (r.known)
			r.v = op == '~' ? ~r.v : op == '!' ? !r.v : r.v;
		return r;
	}
	if (is(e, "(")) {
		next(e);
		if (type_word(e->tok)) {
			while (type_word(e->tok) || is(e, "*"))
				next(e);
			expect(e, ")");
			return unary(e);
		}
		r = cond(e);
		expect(e, ")");
	} else if (isdigit((unsigned char)e->tok[0])) {
		r = literal(e);
	} else if (isalpha((unsigned char)e->tok[0]) || e->tok[0] == '_') {
		if (is(e, "sizeof")) {
			next(e);
			unary(e);
			return unknown();
		}
		r = name(e);
	} else {
		fail(e, "unexpected '%s'", e->tok[0] ? e->tok : "end");
		return unknown();
	}
	/* member access, indexing: a value only known at run time */
	while (is(e, "->") || is(e, ".") || is(e, "[")) {
		if (is(e, "[")) {
			next(e);
			r = mix(unknown(), r, cond(e));
			expect(e, "]");
		} else {
			next(e);
			next(e);
			r.known = false;
		}
	}
	return r;
}

/* One binary operator applied, overflow and division by zero unknown. */
static val apply(const char *op, val a, val b)
{
	val r = mix(number(0), a, b);
	int64_t x = a.v, y = b.v;

	if (!r.known)
		return r;
	if (!strcmp(op, "*"))
		r.known = !__builtin_mul_overflow(x, y, &r.v);
	else if (!strcmp(op, "+"))
		r.known = !__builtin_add_overflow(x, y, &r.v);
	else if (!strcmp(op, "-"))
		r.known = !__builtin_sub_overflow(x, y, &r.v);
	else if (!strcmp(op, "/") || !strcmp(op, "%"))
		r.known = y && !(x == INT64_MIN && y == -1) &&
			  ((r.v = op[0] == '/' ? x / y : x % y), true);
	else if (!strcmp(op, "<<"))
		r.known = y >= 0 && y < 63 && x >= 0 && x <= (INT64_MAX >> y) &&
			  ((r.v = x << y), true);
	else if (!strcmp(op, ">>"))
		r.known = y >= 0 && y < 64 && ((r.v = x >> y), true);
	else if (!strcmp(op, "<"))
		r.v = x < y;
	else if (!strcmp(op, ">"))
		r.v = x > y;
	else if (!strcmp(op, "<="))
		r.v = x <= y;
	else if (!strcmp(op, ">="))
		r.v = x >= y;
	else if (!strcmp(op, "=="))
		r.v = x == y;
	else if (!strcmp(op, "!="))
		r.v = x != y;
	else if (!strcmp(op, "&"))
		r.v = x & y;
	else if (!strcmp(op, "|"))
		r.v = x | y;
	else if (!strcmp(op, "^"))
		r.v = x ^ y;
	else if (!strcmp(op, "&&"))
		r.v = x && y;
	else if (!strcmp(op, "||"))
		r.v = x || y;
	return r;
}

/* Binary operators by precedence, loosest first. */
static const char *const levels[][7] = {
	{ "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" },
	{ "<", ">", "<=", ">=" }, { "<<", ">>" }, { "+", "-" },
	{ "*", "/", "%" },
};
#define NLEVELS	(sizeof(levels) / sizeof(levels[0]))

static val binary(struct ev *e, size_t lvl)
{
	val a, b;
	char op[4];
	int i;

	if (lvl == NLEVELS)
		return unary(e);
	a = binary(e, lvl + 1);
	for (;;) {
		for (i = 0; levels[lvl][i] && !is(e, levels[lvl][i]); i++)
			;
		if (!levels[lvl][i] || e->bad)
			return a;
		memcpy(op, e->tok, sizeof(op) - 1);
		op[sizeof(op) - 1] = 0;
		next(e);
		b = binary(e, lvl + 1);
		a = apply(op, a, b);
	}
}

static val cond(struct ev *e)
{
	val c, a, b, r;

	if (!enter(e))
		return unknown();
	c = binary(e, 0);
	e->nest--;
	if (!is(e, "?"))
		return c;
	if (!enter(e))
		return unknown();
	next(e);
	a = cond(e);
	expect(e, ":");
	b = cond(e);
	r = mix(mix(number(0), a, b), c, number(0));
	r.known = c.known && (c.v ? a.known : b.known);
	if (r.known)
		r.v = c.v ? a.v : b.v;
	e->nest--;
	return r;
}

int hzrig_expr_eval(const char *text, int hz, hzrig_expr_lookup lookup,
		    void *ctx, struct hzrig_expr_val *out, char *err,
		    size_t errlen)
{
	char dummy[1];
	struct ev e = {
		.s = text, .hz = hz, .lookup = lookup, .ctx = ctx, .def = -1,
		.err = err ? err : dummy, .errlen = err ? errlen : sizeof(dummy),
	};

	next(&e);
	*out = cond(&e);
	if (!e.bad && e.tok[0])
		fail(&e, "unexpected '%s' after the expression", e.tok);
	if (e.bad)
		*out = unknown();
	return e.bad ? -1 : 0;
}
