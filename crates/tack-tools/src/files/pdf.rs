//! PDFs for Read: the text of each page under a page marker, with the page
//! count in the header.
//!
//! Text comes from `pdf-extract` (MIT, on `lopdf`), one page at a time, so a
//! call extracts only the pages it shows. Without `pages`, Read goes from
//! page 1 as far as [`PDF_TEXT_BYTES`] and [`MAX_PAGES`] allow and names the
//! range to read next (the counterpart of Claude Code refusing long PDFs
//! without `pages`). A page without text (a scan) says so. The extractor
//! panics on some malformed files; that is caught and reported as an error
//! for the file, never as a crash.

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use tack_tool::{ToolError, ToolOutput};

use super::paths::{io_error, plural};
use super::read::MAX_OUTPUT_BYTES;
use super::state::{FileState, Snapshot, hash_bytes};

/// Pages one call returns at most (Claude Code's limit too).
pub const MAX_PAGES: u32 = 20;
/// Bytes of text a call without `pages` gathers before it stops at a page
/// end: under the default output budget (10,000 tokens), so the note naming
/// the next pages is seen.
pub const PDF_TEXT_BYTES: usize = 32 * 1024;
/// Largest PDF read (it is parsed in memory).
pub const MAX_PDF_BYTES: u64 = 100 * 1024 * 1024;

/// Whether the file `path`, starting with `header`, is a PDF: it starts
/// with `%PDF-`, or is named `.pdf` and has the mark within its first KB
/// (junk before it is allowed by readers). A text file that merely mentions
/// `%PDF-` near its top is not one.
pub(crate) fn is_pdf(path: &Path, header: &[u8]) -> bool {
    if header.starts_with(b"%PDF-") {
        return true;
    }
    let named_pdf = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
    let head = &header[..header.len().min(1024)];
    named_pdf && memchr::memmem::find(head, b"%PDF-").is_some()
}

/// The `pages` of Read: one page ("3") or a range ("1-5"), 1-based,
/// inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageRange {
    pub(crate) first: u32,
    pub(crate) last: u32,
}

impl PageRange {
    pub(crate) fn parse(raw: &str) -> Result<Self, ToolError> {
        let bad = |why: &str| {
            ToolError::InvalidInput(format!(
                "pages {raw:?} {why}. Give one page (\"3\") or a range (\"1-5\"), 1-based, at most {MAX_PAGES} pages."
            ))
        };
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| bad("is not a page number or range"))
        };
        let (first, last) = match raw.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(raw)?;
                (n, n)
            }
        };
        if first == 0 {
            return Err(bad("starts at page 0; pages count from 1"));
        }
        if last < first {
            return Err(bad("ends before it starts"));
        }
        if last - first + 1 > MAX_PAGES {
            return Err(bad(&format!("spans {} pages", last - first + 1)));
        }
        Ok(Self { first, last })
    }
}

/// Reads the PDF at `path` for Read.
pub(crate) fn read_pdf(
    state: &FileState,
    path: &Path,
    canonical: PathBuf,
    meta: &std::fs::Metadata,
    opened: super::read::OpenFile,
    pages: Option<&str>,
) -> Result<ToolOutput, ToolError> {
    let range = pages.map(PageRange::parse).transpose()?;
    if meta.len() > MAX_PDF_BYTES {
        return Err(ToolError::Unavailable(format!(
            "{} is a PDF of {:.0} MB; Read parses PDFs up to {} MB. Extract its text with Bash, e.g. `pdftotext -f 1 -l 5 file.pdf -`.",
            path.display(),
            meta.len() as f64 / 1_048_576.0,
            MAX_PDF_BYTES / 1_048_576
        )));
    }
    let raw = opened.read_all().map_err(|e| io_error("read", path, &e))?;
    let doc = guarded(path, "parse", || load(path, &raw))??;
    let page_ids = doc.get_pages();
    let total = u32::try_from(page_ids.len()).unwrap_or(u32::MAX);
    state.record(canonical, Snapshot::of(meta, hash_bytes(&raw)));
    if total == 0 {
        return Ok(ToolOutput::text(format!(
            "PDF {} has no pages.",
            path.display()
        )));
    }
    let (first, last, limit) = match range {
        Some(r) if r.first > total => {
            return Err(ToolError::InvalidInput(format!(
                "pages {:?} starts past the end of {}, which has {}. Ask for pages within 1-{total}.",
                pages.unwrap_or_default(),
                path.display(),
                plural(total as usize, "page")
            )));
        }
        Some(r) => (r.first, r.last.min(total), MAX_OUTPUT_BYTES),
        None => (1, total.min(MAX_PAGES), PDF_TEXT_BYTES),
    };

    let mut body = String::new();
    let mut shown_last = first - 1;
    let mut empty_pages = Vec::new();
    for page in first..=last {
        let text = guarded(path, &format!("extract page {page} of"), || {
            let mut text = String::new();
            let mut out = pdf_extract::PlainTextOutput::new(&mut text);
            pdf_extract::output_doc_page(&doc, &mut out, page).map(|()| text)
        })?;
        let block = match text {
            Ok(text) => {
                let text = tidy(&text);
                if text.is_empty() {
                    empty_pages.push(page);
                    format!(
                        "--- page {page} of {total} ---\n(No text on this page: it may be a scanned image or a drawing. To look at it, render it with Bash, e.g. `pdftoppm -f {page} -l {page} -png {} /tmp/page`, and Read the PNG.)\n",
                        path.display()
                    )
                } else {
                    format!("--- page {page} of {total} ---\n{text}\n")
                }
            }
            Err(e) => format!(
                "--- page {page} of {total} ---\n(The text of this page could not be extracted: {e}.)\n"
            ),
        };
        if page > first && body.len() + block.len() > limit {
            break;
        }
        body.push_str(&block);
        shown_last = page;
    }

    let mut text = format!(
        "PDF {} ({}); pages {first}-{shown_last}:\n",
        path.display(),
        plural(total as usize, "page")
    );
    text.push_str(body.trim_end());
    if shown_last < total && range.is_none_or(|r| shown_last < r.last.min(total)) {
        let next = shown_last + 1;
        let _ = write!(
            text,
            "\n(The PDF has {total} pages; this shows pages {first}-{shown_last}. To read on, call Read with pages=\"{next}-{}\".)",
            (next + MAX_PAGES - 1).min(total)
        );
    } else if shown_last < total {
        let _ = write!(
            text,
            "\n(The PDF has {total} pages; pages {}-{total} are not shown.)",
            shown_last + 1
        );
    }
    if !empty_pages.is_empty() && empty_pages.len() as u32 == shown_last - first + 1 {
        text.push_str("\n(None of these pages has text: the PDF is probably scanned. Render pages to images with Bash `pdftoppm -png` and Read them, or run OCR.)");
    }
    // Claude Code's `pdf` output, with the text tack extracted (Claude Code
    // sends the file itself as a document).
    let response = serde_json::json!({
        "type": "pdf",
        "file": {
            "filePath": path.display().to_string(),
            "originalSize": meta.len(),
            "totalPages": total,
            "pages": format!("{first}-{shown_last}"),
            "content": body.trim_end(),
        },
    });
    Ok(ToolOutput::text(text).with_response(response))
}

fn load(path: &Path, raw: &[u8]) -> Result<pdf_extract::Document, ToolError> {
    let mut doc = pdf_extract::Document::load_mem(raw).map_err(|e| {
        ToolError::Unavailable(format!(
            "{} starts like a PDF but does not parse as one ({e}). Try Bash `pdftotext {} -`, or `file` to see what it is.",
            path.display(),
            path.display()
        ))
    })?;
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(ToolError::Unavailable(format!(
            "{} is encrypted with a password; decrypt a copy first with Bash, e.g. `qpdf --password=PASSWORD --decrypt in.pdf out.pdf`, and Read that.",
            path.display()
        )));
    }
    Ok(doc)
}

/// Runs extractor code, turning a panic (the extractor has asserts on
/// malformed input) into an error naming the file.
fn guarded<T>(path: &Path, what: &str, work: impl FnOnce() -> T) -> Result<T, ToolError> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|_| {
        ToolError::Unavailable(format!(
            "could not {what} {}: the PDF is malformed in a way the text extractor does not handle. Try Bash `pdftotext {} -`.",
            path.display(),
            path.display()
        ))
    })
}

/// Page text with trailing spaces removed and runs of blank lines cut to one.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_parse_like_claude_code() {
        assert_eq!(
            PageRange::parse("3").unwrap(),
            PageRange { first: 3, last: 3 }
        );
        assert_eq!(
            PageRange::parse("1-5").unwrap(),
            PageRange { first: 1, last: 5 }
        );
        for bad in ["0", "5-2", "a", "1-21", "", "1-"] {
            assert!(
                matches!(PageRange::parse(bad), Err(ToolError::InvalidInput(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn tidy_collapses_blank_runs() {
        assert_eq!(tidy("\n\na  \n\n\n\nb\nc\n\n"), "a\n\nb\nc");
    }
}
