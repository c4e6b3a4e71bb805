//! Read of PDFs made in the test with lopdf: text per page under page
//! markers, `pages` ranges, the bound on a long PDF without `pages`, pages
//! without text, and broken files.

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};
use serde_json::json;
use tack_tool::ToolError;

use crate::files::Env;

/// A PDF whose pages hold the given lines of text (Helvetica, one line under
/// another); a page with no lines is blank, like a scan without a text layer.
pub fn make_pdf(pages: &[Vec<String>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
    });
    let mut kids = Vec::new();
    for lines in pages {
        let mut operations = Vec::new();
        if !lines.is_empty() {
            operations.push(Operation::new("BT", vec![]));
            operations.push(Operation::new("Tf", vec!["F1".into(), 8.into()]));
            operations.push(Operation::new("TL", vec![10.into()]));
            operations.push(Operation::new("Td", vec![72.into(), 760.into()]));
            for line in lines {
                operations.push(Operation::new(
                    "Tj",
                    vec![Object::string_literal(line.as_str())],
                ));
                operations.push(Operation::new("T*", vec![]));
            }
            operations.push(Operation::new("ET", vec![]));
        }
        let content = Content { operations };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// `n` pages, each with `lines` lines naming the page.
pub fn numbered_pdf(n: usize, lines: usize) -> Vec<u8> {
    let pages: Vec<Vec<String>> = (1..=n)
        .map(|p| {
            (1..=lines)
                .map(|l| format!("Page {p} line {l} of the report"))
                .collect()
        })
        .collect();
    make_pdf(&pages)
}

#[tokio::test]
async fn read_shows_text_per_page_with_markers_and_count() {
    let env = Env::new();
    let pdf = make_pdf(&[
        vec!["Quarterly report".into(), "Revenue grew".into()],
        vec![],
        vec!["Appendix".into()],
    ]);
    let path = env.put("report.pdf", pdf);
    let out = env.read(&path).await;
    let out = out.replace(&env.root.display().to_string(), "[DIR]");
    insta::assert_snapshot!("pdf_read", out);
    // Claude Code's `pdf` output object, with the text tack extracted.
    let response = env
        .call("Read", json!({"file_path": path}))
        .await
        .unwrap()
        .response
        .unwrap();
    assert_eq!(response["type"], "pdf");
    assert_eq!(response["file"]["totalPages"], 3);
    assert_eq!(response["file"]["pages"], "1-3");
    assert!(
        response["file"]["content"]
            .as_str()
            .unwrap()
            .contains("Revenue grew")
    );
}

#[tokio::test]
async fn pages_selects_a_range_and_is_checked() {
    let env = Env::new();
    let path = env.put("long.pdf", numbered_pdf(30, 2));
    let out = env
        .ok("Read", json!({"file_path": path, "pages": "12-13"}))
        .await;
    assert!(
        out.starts_with(&format!("PDF {} (30 pages); pages 12-13:", path.display())),
        "{out}"
    );
    assert!(
        out.contains("--- page 12 of 30 ---\nPage 12 line 1 of the report"),
        "{out}"
    );
    assert!(out.contains("Page 13 line 2"));
    assert!(
        !out.contains("Page 11 ") && !out.contains("Page 14 "),
        "{out}"
    );
    let one = env
        .ok("Read", json!({"file_path": path, "pages": "30"}))
        .await;
    assert!(
        one.contains("--- page 30 of 30 ---") && !one.contains("page 29"),
        "{one}"
    );

    for (pages, expect) in [
        ("31-32", "starts past the end"),
        ("1-21", "spans 21 pages"),
        ("0", "pages count from 1"),
        ("x", "not a page number"),
    ] {
        let e = env
            .err("Read", json!({"file_path": path, "pages": pages}))
            .await;
        assert!(
            matches!(&e, ToolError::InvalidInput(m) if m.contains(expect)),
            "{pages}: {e}"
        );
    }
    let txt = env.put("a.txt", "text\n");
    let e = env
        .err("Read", json!({"file_path": txt, "pages": "1"}))
        .await;
    assert!(
        matches!(&e, ToolError::InvalidInput(m) if m.contains("only for PDF")),
        "{e}"
    );
}

#[tokio::test]
async fn a_long_pdf_without_pages_stops_within_the_budget_and_says_where_to_go_on() {
    let env = Env::new();
    // 100 pages of 70 lines: far over one call's text allowance.
    let path = env.put("book.pdf", numbered_pdf(100, 70));
    let out = env.read(&path).await;
    assert!(
        out.len() <= tack_tools::files::PDF_TEXT_BYTES + 1024,
        "{} bytes",
        out.len()
    );
    let last = out
        .lines()
        .filter_map(|l| l.strip_prefix("--- page "))
        .filter_map(|l| l.split(' ').next()?.parse::<u32>().ok())
        .max()
        .unwrap();
    assert!((2..20).contains(&last), "stopped at page {last}");
    assert!(
        out.contains(&format!("The PDF has 100 pages; this shows pages 1-{last}. To read on, call Read with pages=\"{}-{}\"", last + 1, last + 20)),
        "{}",
        &out[out.len() - 300..]
    );
    // Fewer, shorter pages are all shown, with no note.
    let short = env.put("short.pdf", numbered_pdf(3, 2));
    let out = env.read(&short).await;
    assert!(
        out.contains("--- page 3 of 3 ---") && !out.contains("To read on"),
        "{out}"
    );
}

#[tokio::test]
async fn broken_pdfs_are_errors_not_crashes() {
    let env = Env::new();
    let mut pdf = numbered_pdf(2, 1);
    pdf.truncate(pdf.len() / 2);
    for (name, bytes) in [
        ("cut.pdf", pdf),
        ("junk.pdf", b"%PDF-1.7\nthis is not a pdf at all\n".to_vec()),
    ] {
        let path = env.put(name, bytes);
        let e = env.err("Read", json!({"file_path": path})).await;
        assert!(
            matches!(&e, ToolError::Unavailable(m) if m.contains(&path.display().to_string())),
            "{name}: {e}"
        );
    }
}

#[tokio::test]
async fn a_pdf_read_counts_for_the_write_guard() {
    let env = Env::new();
    let path = env.put("r.pdf", numbered_pdf(1, 1));
    let e = env
        .err("Write", json!({"file_path": path, "content": "x"}))
        .await;
    assert!(matches!(e, ToolError::InvalidInput(_)));
    env.read(&path).await;
    env.ok("Write", json!({"file_path": path, "content": "x"}))
        .await;
}

#[tokio::test]
async fn a_text_file_that_mentions_the_pdf_mark_is_read_as_text() {
    let env = Env::new();
    let path = env.put("make_pdf.py", "HEADER = b\"%PDF-1.4\"\nprint(HEADER)\n");
    let out = env.read(&path).await;
    assert!(out.starts_with("     1\tHEADER = b\"%PDF-1.4\""), "{out}");
}
