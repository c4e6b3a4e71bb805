//! Syntax errors and uncaught exceptions come back with their place in the
//! code as written and a short stack.

use super::*;

fn syntax(e: &RunError) -> &tack_codemode::ScriptError {
    match &e.error {
        CodeError::Syntax(s) => s,
        other => panic!("not a syntax error: {other:?}"),
    }
}

#[tokio::test]
async fn a_syntax_error_names_its_line_and_column() {
    let e = fails("const a = 1;\nconst b = a +* 2;\nreturn b").await;
    let error = syntax(&e);
    assert_eq!(error.name, "SyntaxError");
    assert_eq!((error.line, error.column), (Some(2), Some(14)));
    assert!(e.to_string().contains("at line 2, column 14"), "{e}");
}

#[tokio::test]
async fn a_syntax_error_on_the_first_line_counts_columns_from_the_code() {
    let e = fails("let x = = 1").await;
    assert_eq!(
        (syntax(&e).line, syntax(&e).column),
        (Some(1), Some(9)),
        "{e:?}"
    );
}

#[tokio::test]
async fn an_unclosed_block_is_reported_at_the_end_of_the_code() {
    let e = fails("if (true) {\n  console.log(1)").await;
    assert_eq!(syntax(&e).line, Some(2), "{e:?}");
}

#[tokio::test]
async fn an_uncaught_exception_names_its_place_and_stack() {
    let code = "function inner(o) {\n  return o.field;\n}\nfunction outer() { return inner(null) }\nouter();";
    let e = fails(code).await;
    let error = uncaught(&e);
    assert_eq!(error.name, "TypeError");
    assert_eq!(error.message, "cannot read property 'field' of null");
    assert_eq!((error.line, error.column), (Some(2), Some(10)));
    assert_eq!(
        error.stack,
        [
            "at inner (code:2:10)",
            "at outer (code:4:33)",
            "at <anonymous> (code:5:1)",
        ]
    );
    assert!(
        e.to_string().starts_with(
            "uncaught TypeError: cannot read property 'field' of null at line 2, column 10\n    at inner (code:2:10)"
        ),
        "{e}"
    );
}

#[tokio::test]
async fn a_thrown_value_that_is_not_an_error_is_shown_as_it_is() {
    let e = fails("throw { reason: 'custom' }").await;
    let error = uncaught(&e);
    assert_eq!(error.name, "Error");
    assert!(error.message.contains("{\"reason\":\"custom\"}"), "{e}");
}

#[tokio::test]
async fn a_syntax_error_at_run_time_is_an_uncaught_exception() {
    let e = fails("return JSON.parse('{')").await;
    assert_eq!(uncaught(&e).name, "SyntaxError");
}

#[tokio::test]
async fn a_rejection_after_an_await_keeps_its_place() {
    let e = fails("await tools.Echo({});\n\nthrow new Error('after the call')").await;
    let error = uncaught(&e);
    assert_eq!(error.message, "after the call");
    assert_eq!(error.line, Some(3));
}
