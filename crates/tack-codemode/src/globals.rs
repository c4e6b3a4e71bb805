//! What the engine adds to the standard built-ins: `console` and `tools`.
//!
//! `console.log`/`info`/`debug`/`warn`/`error` are Rust functions writing to
//! the run's [`Console`](crate::Console). `tools` is built by a short
//! JavaScript prelude ([`PRELUDE`]) from two Rust primitives it alone holds,
//! `call(name, input)` and `search(query)`, each returning a promise that a
//! future spawned on the runtime settles: the runtime polls all such futures
//! together, which is what makes `Promise.all` over calls concurrent.
//!
//! The prelude holds the `tools` object in JavaScript closures (which the
//! garbage collector sees) rather than in Rust ones (which it does not), so
//! that nothing the program can reach keeps a JavaScript value alive from
//! Rust after the run.

use std::future::Future;
use std::sync::Arc;

use rquickjs::function::{Opt, Rest};
use rquickjs::{Coerced, Ctx, Exception, Function, Object, Promise, Type, Value};
use serde_json::Value as Json;

use crate::bridge::{BridgeError, ToolBridge};
use crate::console::Level;
use crate::engine::Shared;

/// The file name of the prelude; its frames are left out of stack traces.
pub(crate) const PRELUDE_FILE: &str = "tack:prelude";

/// Builds `tools` from the two primitives and the first names. A tool
/// function is `(input) => call(name, input)`, named after its tool; names
/// found by a search are added as the search resolves. `search` itself is not
/// enumerable, so `Object.keys(tools)` lists exactly the callable tools.
const PRELUDE: &str = r#"(function (callTool, searchTools, names) {
  "use strict";
  const defineProperty = Object.defineProperty;
  const hasOwn = Object.prototype.hasOwnProperty;
  const tools = Object.create(null);
  const offer = (name) => {
    if (typeof name !== "string" || name === "search" || hasOwn.call(tools, name)) return;
    const fn = { [name]: (input) => callTool(name, input) }[name];
    defineProperty(tools, name, { value: fn, enumerable: true, writable: true, configurable: true });
  };
  defineProperty(tools, "search", {
    value: async function search(query) {
      const found = await searchTools(query);
      for (let i = 0; i < found.length; i++) offer(found[i].name);
      return found;
    },
    enumerable: false, writable: true, configurable: true,
  });
  for (let i = 0; i < names.length; i++) offer(names[i]);
  return tools;
})"#;

/// What the Rust primitives need.
struct Env {
    bridge: Arc<dyn ToolBridge>,
    shared: Arc<Shared>,
}

/// Adds `console` and `tools` to the context's globals.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    bridge: Arc<dyn ToolBridge>,
    shared: Arc<Shared>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    globals.set("console", console(ctx, &shared)?)?;

    let names = bridge.names();
    let env = Arc::new(Env { bridge, shared });
    let call = {
        let env = env.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, name: String, input: Opt<Value<'js>>| {
                call_tool(ctx, &env, name, input.0)
            },
        )?
    };
    let search = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, query: Opt<Coerced<String>>| {
            search_tools(ctx, &env, query.0.map(|q| q.0).unwrap_or_default())
        },
    )?;
    let mut options = rquickjs::context::EvalOptions::default();
    options.strict = true;
    options.filename = Some(PRELUDE_FILE.to_owned());
    let build: Function = ctx.eval_with_options(PRELUDE, options)?;
    let tools: Object = build.call((call, search, names))?;
    globals.set("tools", tools)?;
    Ok(())
}

fn console<'js>(ctx: &Ctx<'js>, shared: &Arc<Shared>) -> rquickjs::Result<Object<'js>> {
    let console = Object::new(ctx.clone())?;
    for (method, level) in [
        ("log", Level::Log),
        ("info", Level::Info),
        ("debug", Level::Debug),
        ("warn", Level::Warn),
        ("error", Level::Error),
    ] {
        let shared = shared.clone();
        let print = Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
            let mut text = String::new();
            for (i, value) in args.0.iter().enumerate() {
                if i > 0 {
                    text.push(' ');
                }
                text.push_str(&format_value(&ctx, value)?);
            }
            shared.print(level, text);
            Ok::<_, rquickjs::Error>(())
        })?
        .with_name(method)?;
        console.set(method, print)?;
    }
    Ok(console)
}

/// `call(name, input)`: a promise the bridge's answer settles.
fn call_tool<'js>(
    ctx: Ctx<'js>,
    env: &Arc<Env>,
    name: String,
    input: Option<Value<'js>>,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    let input = match to_input(&ctx, input)? {
        Ok(input) => input,
        Err(message) => {
            let error = tool_error(&ctx, &name, BridgeError::INVALID_INPUT, &message)?;
            reject.call::<_, ()>((error,))?;
            return Ok(promise);
        }
    };
    if let Err(message) = env.shared.take_call() {
        let error = tool_error(&ctx, &name, BridgeError::LIMIT, &message)?;
        reject.call::<_, ()>((error,))?;
        return Ok(promise);
    }
    let bridge = env.bridge.clone();
    let tool = name.clone();
    let answer = async move { bridge.call(&tool, input).await };
    spawn_settle(&ctx, &env.shared, name, answer, resolve, reject);
    Ok(promise)
}

/// `search(query)`: a promise of the tools found, as JSON objects.
fn search_tools<'js>(
    ctx: Ctx<'js>,
    env: &Arc<Env>,
    query: String,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    if let Err(message) = env.shared.take_call() {
        let error = tool_error(&ctx, "search", BridgeError::LIMIT, &message)?;
        reject.call::<_, ()>((error,))?;
        return Ok(promise);
    }
    let bridge = env.bridge.clone();
    let answer = async move {
        let found = bridge.search(&query).await?;
        serde_json::to_value(found)
            .map_err(|e| BridgeError::new("internal", format!("search results: {e}")))
    };
    spawn_settle(
        &ctx,
        &env.shared,
        "search".to_owned(),
        answer,
        resolve,
        reject,
    );
    Ok(promise)
}

/// Spawns `answer` on the runtime; when it is ready, resolves with its value
/// or rejects with a tool error.
fn spawn_settle<'js, F>(
    ctx: &Ctx<'js>,
    shared: &Arc<Shared>,
    tool: String,
    answer: F,
    resolve: Function<'js>,
    reject: Function<'js>,
) where
    F: Future<Output = Result<Json, BridgeError>> + 'js,
{
    let in_flight = shared.start_call();
    let task_ctx = ctx.clone();
    ctx.spawn(async move {
        let answer = answer.await;
        let ctx = task_ctx;
        let settled = match answer {
            Ok(value) => json_to_js(&ctx, &value).and_then(|value| resolve.call::<_, ()>((value,))),
            Err(error) => tool_error(&ctx, &tool, &error.kind, &error.message)
                .and_then(|error| reject.call::<_, ()>((error,))),
        };
        if settled.is_err() {
            // Only an engine out of memory or stopped fails here, and that
            // ends the run; the program's promise stays pending until then.
            let _ = ctx.catch();
        }
        drop(in_flight);
    });
}

/// A tool call's rejection: an `Error` named `ToolError` with `kind`,
/// `message` and `tool`.
fn tool_error<'js>(
    ctx: &Ctx<'js>,
    tool: &str,
    kind: &str,
    message: &str,
) -> rquickjs::Result<Value<'js>> {
    let error = Exception::from_message(ctx.clone(), message)?;
    error.set("name", "ToolError")?;
    error.set("kind", kind)?;
    error.set("tool", tool)?;
    Ok(error.into_value())
}

/// The program's input to a tool as JSON: `{}` when it passed nothing;
/// `Err` with what is wrong when it is not JSON. Only a fatal engine error
/// (out of memory, stopped) is an `Err` of the outer result.
fn to_input<'js>(
    ctx: &Ctx<'js>,
    input: Option<Value<'js>>,
) -> rquickjs::Result<Result<Json, String>> {
    let Some(input) = input.filter(|v| !v.is_undefined()) else {
        return Ok(Ok(Json::Object(serde_json::Map::new())));
    };
    let text = match recover(ctx, ctx.json_stringify(input))? {
        Ok(Some(text)) => text.to_string()?,
        Ok(None) => {
            return Ok(Err(
                "a tool's input must be JSON (an object), not a function or a symbol".to_owned(),
            ));
        }
        Err(message) => return Ok(Err(format!("a tool's input must be JSON: {message}"))),
    };
    Ok(serde_json::from_str(&text).map_err(|e| format!("a tool's input must be JSON: {e}")))
}

/// A JSON value as a JavaScript one.
pub(crate) fn json_to_js<'js>(ctx: &Ctx<'js>, value: &Json) -> rquickjs::Result<Value<'js>> {
    let text = serde_json::to_string(value)
        .map_err(|e| Exception::throw_internal(ctx, &format!("JSON from a tool: {e}")))?;
    ctx.json_parse(text)
}

/// The program's return value as JSON: `None` for `undefined` (and for the
/// values `JSON.stringify` leaves out: functions, symbols); a value JSON
/// cannot hold (a cycle, a BigInt) comes back as its string.
pub(crate) fn to_output<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Option<Json>> {
    if value.is_undefined() {
        return Ok(None);
    }
    match recover(ctx, ctx.json_stringify(value.clone()))? {
        Ok(Some(text)) => {
            let text = text.to_string()?;
            Ok(Some(
                serde_json::from_str(&text).unwrap_or(Json::String(text)),
            ))
        }
        Ok(None) => Ok(None),
        Err(_) => Ok(Some(Json::String(format_value(ctx, &value)?))),
    }
}

/// How `console.log` shows one argument: a string as it is, an error as
/// `Name: message`, a function as `[Function name]`, other values as compact
/// JSON (or their string when JSON cannot hold them).
pub(crate) fn format_value<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<String> {
    match value.type_of() {
        Type::String => value
            .as_string()
            .map_or_else(|| Ok(String::new()), |s| s.to_string()),
        Type::Undefined | Type::Uninitialized => Ok("undefined".to_owned()),
        Type::Null => Ok("null".to_owned()),
        Type::BigInt => Ok(format!("{}n", coerce(ctx, value)?)),
        Type::Symbol => {
            let description = value
                .as_symbol()
                .and_then(|s| s.description().ok())
                .filter(|d| !d.is_undefined());
            Ok(match description {
                Some(d) => format!("Symbol({})", coerce(ctx, &d)?),
                None => "Symbol()".to_owned(),
            })
        }
        Type::Function | Type::Constructor => {
            let name = value
                .as_object()
                .and_then(|o| o.get::<_, Option<String>>("name").ok().flatten())
                .filter(|n| !n.is_empty());
            Ok(match name {
                Some(name) => format!("[Function {name}]"),
                None => "[Function (anonymous)]".to_owned(),
            })
        }
        Type::Exception => {
            let object = value.as_object();
            let get = |key: &str| {
                object
                    .and_then(|o| o.get::<_, Option<Coerced<String>>>(key).ok().flatten())
                    .map(|s| s.0)
            };
            let name = get("name").unwrap_or_else(|| "Error".to_owned());
            Ok(match get("message").filter(|m| !m.is_empty()) {
                Some(message) => format!("{name}: {message}"),
                None => name,
            })
        }
        Type::Bool | Type::Int | Type::Float => coerce(ctx, value),
        _ => match recover(ctx, ctx.json_stringify(value.clone()))? {
            Ok(Some(text)) => text.to_string(),
            Ok(None) | Err(_) => coerce(ctx, value),
        },
    }
}

/// [`format_value`] for an error report: never fails.
pub(crate) fn format_value_lossy<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> String {
    format_value(ctx, value).unwrap_or_else(|_| {
        let _ = ctx.catch();
        format!("[{}]", value.type_name())
    })
}

/// `String(value)`, or `[object]` when that throws.
fn coerce<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<String> {
    Ok(match recover(ctx, value.get::<Coerced<String>>())? {
        Ok(s) => s.0,
        Err(_) => format!("[{}]", value.type_name()),
    })
}

/// Turns an exception the program could have caught into `Ok(Err(message))`
/// (it is handled here); an uncatchable one (the run was stopped) or running
/// out of memory stays an `Err` and is thrown on.
fn recover<'js, T>(
    ctx: &Ctx<'js>,
    result: rquickjs::Result<T>,
) -> rquickjs::Result<Result<T, String>> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(rquickjs::Error::Exception) => {
            let thrown = ctx.catch();
            if thrown.is_uncatchable_error() || is_out_of_memory(&thrown) {
                return Err(ctx.throw(thrown));
            }
            let message = thrown
                .as_object()
                .and_then(|o| {
                    o.get::<_, Option<Coerced<String>>>("message")
                        .ok()
                        .flatten()
                })
                .map(|m| m.0)
                .unwrap_or_else(|| thrown.type_name().to_owned());
            Ok(Err(message))
        }
        Err(other) => Err(other),
    }
}

/// Whether `thrown` is QuickJS's `InternalError: out of memory`.
pub(crate) fn is_out_of_memory(thrown: &Value<'_>) -> bool {
    let Some(object) = thrown.as_object().filter(|_| thrown.is_error()) else {
        return false;
    };
    let get = |key: &str| object.get::<_, Option<String>>(key).ok().flatten();
    get("name").as_deref() == Some("InternalError")
        && get("message").as_deref() == Some("out of memory")
}
