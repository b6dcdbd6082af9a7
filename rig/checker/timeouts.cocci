// SPDX-License-Identifier: GPL-2.0
//
// hzrig check-tree: the facts about the timeouts of the synchronous USB
// calls in one C file, for rig/checker/ to judge (docs/checker.md).
//
// This semantic patch changes nothing and decides nothing: it prints one
// "HZRIG {json}" line per fact, and hzrig resolves and evaluates them:
//
//   sink     the timeout argument of one of the six calls below, as written
//   wrapper  a function whose parameter number "index" is passed unchanged
//            as the timeout of one of those calls (one level of wrapper)
//   wsink    the argument a caller passes a wrapper in that position
//   flow     an assignment or initialisation of a local variable that
//            reaches a sink or wsink using the variable (some path, no
//            assignment to it in between)
//   decl     every initialised declaration (hzrig keeps the file-scope ones)
//
// Macros are read by hzrig itself (they may live in the driver's headers).
// Positions: first line and 0-based column, last line and column (exclusive).

@initialize:python@
@@
import json


def hzrig_emit(kind, p, **kw):
    d = {"kind": kind, "file": p[0].file, "func": p[0].current_element,
         "line": int(p[0].line), "col": int(p[0].column),
         "line_end": int(p[0].line_end), "col_end": int(p[0].column_end)}
    d.update(kw)
    print("HZRIG " + json.dumps(d, sort_keys=True))


def hzrig_call(pc):
    return {"call_line": int(pc[0].line), "call_col": int(pc[0].column)}

@sink@
expression list[8] A8;
expression list[5] A5;
expression F;
identifier fn = {usb_control_msg, usb_bulk_msg, usb_interrupt_msg,
		  usb_bulk_msg_killable, usb_control_msg_send,
		  usb_control_msg_recv};
expression T;
position pc, pt;
@@
// Each call has a fixed arity: usb_control_msg 9 arguments, the bulk and
// interrupt calls 6, usb_control_msg_send/_recv 10 (the timeout, then gfp).
(
fn@pc(A8, T@pt)
|
fn@pc(A5, T@pt)
|
fn@pc(A8, T@pt, F)
)

@script:python@
pc << sink.pc;
pt << sink.pt;
T << sink.T;
fn << sink.fn;
@@
hzrig_emit("sink", pt, expr=T, api=fn, **hzrig_call(pc))

@wrapper@
expression list[8] A8;
expression list[5] A5;
expression F;
identifier fn = {usb_control_msg, usb_bulk_msg, usb_interrupt_msg,
		  usb_bulk_msg_killable, usb_control_msg_send,
		  usb_control_msg_recv};
identifier W, t;
type TT;
parameter list[n] PS;
position pw;
@@
W@pw(PS, TT t, ...) {
<+...
// Each call has a fixed arity: usb_control_msg 9 arguments, the bulk and
// interrupt calls 6, usb_control_msg_send/_recv 10 (the timeout, then gfp).
(
fn(A8, t)
|
fn(A5, t)
|
fn(A8, t, F)
)
...+>
}

@script:python@
W << wrapper.W;
n << wrapper.n;
t << wrapper.t;
fn << wrapper.fn;
pw << wrapper.pw;
@@
hzrig_emit("wrapper", pw, name=W, index=int(n), param=t, api=fn)

@wsink@
identifier wrapper.W;
expression list[wrapper.n] B;
expression E;
position pc, pt;
@@
W@pc(B, E@pt, ...)

@script:python@
W << wrapper.W;
pc << wsink.pc;
pt << wsink.pt;
E << wsink.E;
@@
hzrig_emit("wsink", pt, expr=E, wrapper=W, **hzrig_call(pc))

@flow_assign exists@
expression list[8] A8;
expression list[5] A5;
expression F;
identifier fn = {usb_control_msg, usb_bulk_msg, usb_interrupt_msg,
		  usb_bulk_msg_killable, usb_control_msg_send,
		  usb_control_msg_recv};
identifier x;
expression E, E2;
position pe, pc;
@@
x = E@pe;
... when != x = E2
// Each call has a fixed arity: usb_control_msg 9 arguments, the bulk and
// interrupt calls 6, usb_control_msg_send/_recv 10 (the timeout, then gfp).
(
fn@pc(A8, <+... x ...+>)
|
fn@pc(A5, <+... x ...+>)
|
fn@pc(A8, <+... x ...+>, F)
)

@script:python@
x << flow_assign.x;
E << flow_assign.E;
pe << flow_assign.pe;
pc << flow_assign.pc;
@@
hzrig_emit("flow", pe, name=x, expr=E, **hzrig_call(pc))

@flow_init exists@
expression list[8] A8;
expression list[5] A5;
expression F;
identifier fn = {usb_control_msg, usb_bulk_msg, usb_interrupt_msg,
		  usb_bulk_msg_killable, usb_control_msg_send,
		  usb_control_msg_recv};
identifier x;
expression E, E2;
type TT;
position pe, pc;
@@
TT x = E@pe;
... when != x = E2
// Each call has a fixed arity: usb_control_msg 9 arguments, the bulk and
// interrupt calls 6, usb_control_msg_send/_recv 10 (the timeout, then gfp).
(
fn@pc(A8, <+... x ...+>)
|
fn@pc(A5, <+... x ...+>)
|
fn@pc(A8, <+... x ...+>, F)
)

@script:python@
x << flow_init.x;
E << flow_init.E;
pe << flow_init.pe;
pc << flow_init.pc;
@@
hzrig_emit("flow", pe, name=x, expr=E, **hzrig_call(pc))

@wflow_assign exists@
identifier wrapper.W;
expression list[wrapper.n] B;
identifier x;
expression E, E2;
position pe, pc;
@@
x = E@pe;
... when != x = E2
W@pc(B, <+... x ...+>, ...)

@script:python@
x << wflow_assign.x;
E << wflow_assign.E;
pe << wflow_assign.pe;
pc << wflow_assign.pc;
@@
hzrig_emit("flow", pe, name=x, expr=E, **hzrig_call(pc))

@wflow_init exists@
identifier wrapper.W;
expression list[wrapper.n] B;
identifier x;
expression E, E2;
type TT;
position pe, pc;
@@
TT x = E@pe;
... when != x = E2
W@pc(B, <+... x ...+>, ...)

@script:python@
x << wflow_init.x;
E << wflow_init.E;
pe << wflow_init.pe;
pc << wflow_init.pc;
@@
hzrig_emit("flow", pe, name=x, expr=E, **hzrig_call(pc))

@decl@
type TT;
identifier x;
expression E;
position pe;
@@
TT x = E@pe;

@script:python@
x << decl.x;
E << decl.E;
pe << decl.pe;
@@
hzrig_emit("decl", pe, name=x, expr=E)
