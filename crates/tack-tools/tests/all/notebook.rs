//! Read of `.ipynb` and NotebookEdit on real notebooks. The fixtures were
//! written the way nbformat writes (`json.dumps(sort_keys=True, indent=1,
//! ensure_ascii=False)` and a final newline); the `.replaced-*` ones are what
//! nbformat writes after the same edit, so an edit must match them byte for
//! byte.

use serde_json::{Value, json};
use tack_protocol::ContentBlock;
use tack_tool::ToolError;

use crate::files::{Env, text};

const NOTEBOOK: &str = include_str!("fixtures/analysis.ipynb");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/all/fixtures")
            .join(name),
    )
    .unwrap()
}

fn masked(env: &Env, s: &str) -> String {
    s.replace(&env.root.display().to_string(), "[DIR]")
}

#[tokio::test]
async fn read_shows_cells_with_outputs_errors_and_images() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    let out = env.call("Read", json!({"file_path": path})).await.unwrap();
    let shown = text(&out);
    // The traceback lost its colours but kept its text.
    assert!(!shown.contains('\u{1b}'), "{shown}");
    assert!(
        shown.contains("----> 1 raise ValueError(\"bad value\")"),
        "{shown}"
    );
    // The figure came as an image block, the text says so.
    let images: Vec<_> = out
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(i) => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 1);
    let image = serde_json::to_value(images[0]).unwrap();
    assert_eq!(image["source"]["media_type"], "image/png");
    assert!(!image["source"]["data"].as_str().unwrap().contains('\n'));
    insta::assert_snapshot!("notebook_read", masked(&env, &shown));
    // Claude Code's output object (hooks' tool_response): the cells shown.
    let response = out.response.unwrap();
    assert_eq!(response["type"], "notebook");
    assert_eq!(response["file"]["filePath"], path.to_str().unwrap());
    assert_eq!(response["file"]["cells"][1]["id"], "load");
}

#[tokio::test]
async fn read_of_a_notebook_pages_by_cells() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    let first = env.ok("Read", json!({"file_path": path, "limit": 2})).await;
    assert!(first.contains("id=\"load\""));
    assert!(!first.contains("id=\"plot\""));
    assert!(
        first.contains("call Read with offset=3"),
        "the note names where to read on: {first}"
    );
    let rest = env
        .ok("Read", json!({"file_path": path, "offset": 3}))
        .await;
    assert!(rest.contains("id=\"plot\"") && rest.contains("id=\"boom\""));
    assert!(!rest.contains("id=\"load\""));
    assert!(!rest.contains("To read on"), "{rest}");
    let past = env
        .err("Read", json!({"file_path": path, "offset": 9}))
        .await;
    assert!(
        matches!(&past, ToolError::InvalidInput(m) if m.contains("4 cells")),
        "{past}"
    );
}

#[tokio::test]
async fn huge_outputs_and_too_many_images_become_notes() {
    let env = Env::new();
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let mut cells = vec![json!({
        "cell_type": "code", "execution_count": 1, "id": "big", "metadata": {},
        "outputs": [{"name": "stdout", "output_type": "stream", "text": "x".repeat(50_000)}],
        "source": "print('x' * 50000)"
    })];
    for i in 0..10 {
        cells.push(json!({
            "cell_type": "code", "execution_count": null, "id": format!("img{i}"), "metadata": {},
            "outputs": [{"data": {"image/png": png}, "metadata": {}, "output_type": "display_data"}],
            "source": ""
        }));
    }
    let nb = json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    let path = env.put("big.ipynb", serde_json::to_string_pretty(&nb).unwrap());
    let out = env.call("Read", json!({"file_path": path})).await.unwrap();
    let shown = text(&out);
    assert!(
        shown.contains("This output has 50000 characters"),
        "{shown}"
    );
    assert!(shown.contains("jq -r '.cells[0].outputs[0]'"));
    assert!(shown.len() < 10_000, "the big output is not shown");
    let images = out
        .content
        .iter()
        .filter(|b| matches!(b, ContentBlock::Image(_)))
        .count();
    assert_eq!(images, tack_tools::files::MAX_NOTEBOOK_IMAGES);
    assert!(
        shown.contains("image allowance is used up. Read this cell alone with offset=10 limit=1"),
        "{shown}"
    );
}

#[tokio::test]
async fn malformed_notebooks_are_clear_errors() {
    let env = Env::new();
    for (name, content, expect) in [
        ("cut.ipynb", &NOTEBOOK[..200], "JSON does not parse"),
        ("list.ipynb", "[1, 2]", "top level is not a JSON object"),
        ("nocells.ipynb", "{\"metadata\": {}}", "no \"cells\" list"),
        (
            "badcell.ipynb",
            "{\"cells\": [3]}",
            "cell 0 is not a JSON object",
        ),
        (
            "old.ipynb",
            "{\"nbformat\": 3, \"worksheets\": []}",
            "nbformat 3",
        ),
    ] {
        let path = env.put(name, content);
        let e = env.err("Read", json!({"file_path": path})).await;
        assert!(
            matches!(&e, ToolError::Unavailable(m) if m.contains(expect)),
            "{name}: {e}"
        );
        let e = env
            .err(
                "NotebookEdit",
                json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "x"}),
            )
            .await;
        assert!(
            matches!(e, ToolError::InvalidInput(_)),
            "{name} was not read: {e}"
        );
    }
}

#[tokio::test]
async fn replace_keeps_the_file_as_nbformat_writes_it() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    env.read(&path).await;
    let out = env
        .ok(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "load", "new_source": "import math\nprint(math.e)\n"}),
        )
        .await;
    assert!(
        out.contains("Replaced the source of code cell load (index 1)"),
        "{out}"
    );
    let response = env
        .call(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "load", "new_source": "import math\nprint(math.e)\n"}),
        )
        .await
        .unwrap()
        .response
        .unwrap();
    // Claude Code's NotebookEdit output (the same edit again: same file).
    assert_eq!(
        (
            response["edit_mode"].as_str(),
            response["cell_id"].as_str(),
            response["notebook_path"].as_str()
        ),
        (Some("replace"), Some("load"), path.to_str())
    );
    assert_eq!(
        response["updated_file"],
        fixture("analysis.replaced-load.ipynb")
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        fixture("analysis.replaced-load.ipynb")
    );
    // The edit recorded the new content: a second edit needs no Read.
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-2", "new_source": "", "edit_mode": "delete"}),
    )
    .await;
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ids: Vec<&str> = now["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["intro", "load", "boom"]);
}

#[tokio::test]
async fn delete_and_type_change_match_nbformat() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    env.read(&path).await;
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "plot", "new_source": "", "edit_mode": "delete"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        fixture("analysis.deleted-plot.ipynb")
    );

    let path = env.put("b.ipynb", NOTEBOOK);
    env.read(&path).await;
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "intro", "new_source": "x = 1", "cell_type": "code"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        fixture("analysis.intro-to-code.ipynb")
    );
}

#[tokio::test]
async fn insert_adds_a_cell_with_a_fresh_id_after_the_one_named() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    env.read(&path).await;
    let out = env
        .ok(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "load", "new_source": "## Results\nBelow.", "cell_type": "markdown", "edit_mode": "insert"}),
        )
        .await;
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cell = &now["cells"][2];
    assert_eq!(cell["cell_type"], "markdown");
    assert_eq!(cell["source"], json!(["## Results\n", "Below."]));
    let id = cell["id"].as_str().unwrap();
    assert!(
        id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    assert!(out.contains(&format!("id {id}")), "{out}");
    // At the top without cell_id; a code cell gets empty outputs.
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "new_source": "import os", "cell_type": "code", "edit_mode": "insert"}),
    )
    .await;
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now["cells"][0]["source"], json!(["import os"]));
    assert_eq!(now["cells"][0]["outputs"], json!([]));
    assert_eq!(now["cells"].as_array().unwrap().len(), 6);
    // The rest of the file is as it was: the original's lines all remain, in order.
    let written = std::fs::read_to_string(&path).unwrap();
    let mut lines = written.lines();
    for line in NOTEBOOK.lines() {
        assert!(lines.any(|l| l == line), "line {line:?} lost");
    }
}

#[tokio::test]
async fn edit_needs_a_fresh_read_and_names_unknown_cells() {
    let env = Env::new();
    let path = env.put("analysis.ipynb", NOTEBOOK);
    let edit = json!({"notebook_path": path, "cell_id": "load", "new_source": "1"});
    let e = env.err("NotebookEdit", edit.clone()).await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("has not been read")),
        "{e}"
    );
    env.read(&path).await;
    std::fs::write(
        &path,
        NOTEBOOK.replace("Reads the data.", "Reads more data."),
    )
    .unwrap();
    let e = env.err("NotebookEdit", edit).await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("changed on disk")),
        "{e}"
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("Reads more data."),
        "left unchanged"
    );

    env.read(&path).await;
    let e = env
        .err(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "nope", "new_source": "1"}),
        )
        .await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("intro, load, plot, boom")),
        "{e}"
    );
    let e = env
        .err(
            "NotebookEdit",
            json!({"notebook_path": path, "new_source": "1", "edit_mode": "insert"}),
        )
        .await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("needs cell_type")),
        "{e}"
    );
    let e = env
        .err(
            "NotebookEdit",
            json!({"notebook_path": path, "new_source": "1"}),
        )
        .await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("needs cell_id")),
        "{e}"
    );
    let txt = env.put("a.txt", "x");
    let e = env
        .err(
            "NotebookEdit",
            json!({"notebook_path": txt, "cell_id": "cell-0", "new_source": "1"}),
        )
        .await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("not a notebook")),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        NOTEBOOK.replace("Reads the data.", "Reads more data.")
    );
}

#[tokio::test]
async fn notebooks_without_ids_use_cell_numbers() {
    let env = Env::new();
    let nb = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": \"a = 1\"\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}";
    let path = env.put("old.ipynb", nb);
    let shown = env.read(&path).await;
    assert!(shown.contains("id=\"cell-0\""), "{shown}");
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "a = 2"}),
    )
    .await;
    // A string source stays a string, no id is added, no final newline appears.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        nb.replace("a = 1", "a = 2")
    );
    env.ok(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "b", "cell_type": "markdown", "edit_mode": "insert"}),
    )
    .await;
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(now["cells"][1].get("id").is_none());
}
