//! No way out: the program sees the standard built-ins, `console` and
//! `tools`, and nothing else, however it looks.

use super::*;

/// Every global a program has. ECMAScript's own, plus QuickJS's
/// `InternalError` and `queueMicrotask` (a microtask, not a timer), plus the
/// engine's `console` and `tools`.
const ALLOWED_GLOBALS: &[&str] = &[
    "AggregateError",
    "Array",
    "ArrayBuffer",
    "AsyncDisposableStack",
    "Atomics",
    "BigInt",
    "BigInt64Array",
    "BigUint64Array",
    "Boolean",
    "DataView",
    "Date",
    "DisposableStack",
    "Error",
    "EvalError",
    "FinalizationRegistry",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "Function",
    "Infinity",
    "Int16Array",
    "Int32Array",
    "Int8Array",
    "InternalError",
    "Iterator",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Set",
    "SharedArrayBuffer",
    "String",
    "SuppressedError",
    "Symbol",
    "Symbol(Symbol.toStringTag)",
    "SyntaxError",
    "TypeError",
    "URIError",
    "Uint16Array",
    "Uint32Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "console",
    "decodeURI",
    "decodeURIComponent",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "eval",
    "globalThis",
    "isFinite",
    "isNaN",
    "parseFloat",
    "parseInt",
    "queueMicrotask",
    "tools",
    "undefined",
    "unescape",
];

fn sorted(value: Value) -> Vec<String> {
    let mut names: Vec<String> = serde_json::from_value(value).unwrap();
    names.sort();
    names
}

#[tokio::test]
async fn the_global_object_holds_only_the_standard_built_ins_console_and_tools() {
    let names = value("return Reflect.ownKeys(globalThis).map(String)").await;
    assert_eq!(sorted(names), ALLOWED_GLOBALS);
    // Nothing hides on the global object's prototype chain either.
    let chain = value(
        "let names = []; \
         for (let o = Object.getPrototypeOf(globalThis); o && o !== Object.prototype; o = Object.getPrototypeOf(o)) \
           names.push(...Object.getOwnPropertyNames(o)); \
         return names",
    )
    .await;
    assert_eq!(chain, json!([]));
}

#[tokio::test]
async fn require_fetch_process_deno_and_timers_do_not_exist() {
    let kinds = value(
        "return [typeof require, typeof module, typeof exports, typeof fetch, typeof process, \
                 typeof Deno, typeof Bun, typeof setTimeout, typeof setInterval, \
                 typeof std, typeof os, typeof performance, typeof XMLHttpRequest, typeof WebSocket]",
    )
    .await;
    assert_eq!(kinds, json!(vec!["undefined"; 14]));
}

#[tokio::test]
async fn dynamic_import_rejects_and_static_import_does_not_parse() {
    let got = value(
        "try { await import('fs'); return 'imported' } \
         catch (e) { return [e.name, String(e.message)] }",
    )
    .await;
    assert_ne!(got, json!("imported"));
    assert_eq!(got[1], json!("could not load module 'fs'"), "{got}");

    let e = fails("import fs from 'fs';\nreturn fs").await;
    assert!(matches!(e.error, CodeError::Syntax(_)), "{:?}", e.error);
}

#[tokio::test]
async fn the_function_constructor_and_eval_reach_the_same_global_and_nothing_more() {
    let got = value(
        "const g1 = Function('return this')(); \
         const g2 = (0, eval)('this'); \
         const g3 = [].constructor.constructor('return globalThis')(); \
         const g4 = await (async function () {}).constructor('return this')(); \
         const g5 = (function* () {}).constructor('yield this')().next().value; \
         return [g1 === globalThis, g2 === globalThis, g3 === globalThis, g4 === globalThis, \
                 g5 === globalThis, eval('typeof require'), Function('return typeof process')(), \
                 (0, eval)('typeof fetch')]",
    )
    .await;
    assert_eq!(
        got,
        json!([
            true,
            true,
            true,
            true,
            true,
            "undefined",
            "undefined",
            "undefined"
        ])
    );
}

#[tokio::test]
async fn atomics_wait_cannot_block_the_thread() {
    let got = value(
        "try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 'blocked' } \
         catch (e) { return e.name }",
    )
    .await;
    assert_eq!(got, json!("TypeError"));
}

#[tokio::test]
async fn nothing_one_run_changes_is_seen_by_the_next() {
    ok("Object.prototype.polluted = 1; \
        Array.prototype.push = function () { return 'hijacked' }; \
        JSON.stringify = () => 'hijacked'; \
        globalThis.leaked = 1; \
        tools.Echo = async () => 'hijacked'; \
        console.log = () => {};")
    .await;

    let out = ok("const a = []; a.push(1); \
                  console.log('visible'); \
                  return [({}).polluted, typeof leaked, a.length, JSON.stringify({ x: 1 }), \
                          await tools.Echo({ y: 2 })]")
    .await;
    assert_eq!(
        out.value,
        Some(json!([null, "undefined", 1, "{\"x\":1}", { "y": 2 }]))
    );
    assert_eq!(out.console.render(), "visible");
}

#[tokio::test]
async fn the_tools_object_has_no_prototype_to_climb() {
    let got = value(
        "return [Object.getPrototypeOf(tools), typeof tools.constructor, typeof tools.toString, \
                 typeof tools.__proto__, 'hasOwnProperty' in tools]",
    )
    .await;
    assert_eq!(
        got,
        json!([null, "undefined", "undefined", "undefined", false])
    );
}
