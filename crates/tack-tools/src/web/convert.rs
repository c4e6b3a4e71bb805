//! What a response body becomes for the model: HTML as Markdown, text as is,
//! binary refused.

/// How a body is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Html,
    Text,
    Binary,
}

/// The media type (lowercase, no parameters) and charset of a Content-Type.
pub(crate) fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_ascii_lowercase())
    });
    (mime, charset)
}

/// The kind of a declared media type; `None` when the body must be sniffed
/// (no type, or a generic binary type that often carries text).
pub(crate) fn classify(mime: &str) -> Option<Kind> {
    if mime.is_empty() || mime == "application/octet-stream" || mime == "binary/octet-stream" {
        return None;
    }
    if mime == "text/html" || mime == "application/xhtml+xml" {
        return Some(Kind::Html);
    }
    let textual = mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || mime.ends_with("+yaml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/x-ndjson"
                | "application/jsonl"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-toml"
                | "application/x-sh"
                | "application/x-shellscript"
                | "application/sql"
                | "application/graphql"
                | "application/x-www-form-urlencoded"
                | "application/x-tex"
                | "application/x-httpd-php"
        );
    Some(if textual { Kind::Text } else { Kind::Binary })
}

/// Guesses the kind of an undeclared body: text when it has no NUL byte and
/// is UTF-8 (an incomplete last character is fine: the body may be cut).
pub(crate) fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(8192)];
    if head.contains(&0) {
        return Kind::Binary;
    }
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && e.valid_up_to() + 4 > head.len(),
    };
    if !utf8 {
        return Kind::Binary;
    }
    let start = String::from_utf8_lossy(&head[..head.len().min(512)])
        .trim_start()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// Decodes a body: Latin-1 family charsets byte by byte, anything else as
/// UTF-8 (invalid sequences become U+FFFD).
pub(crate) fn decode(body: &[u8], charset: Option<&str>) -> String {
    match charset {
        Some("iso-8859-1" | "latin1" | "latin-1" | "us-ascii" | "ascii" | "windows-1252") => {
            body.iter().map(|&b| char::from(b)).collect()
        }
        _ => String::from_utf8_lossy(body).into_owned(),
    }
}

/// HTML as Markdown, without scripts, styles and other invisible parts; the
/// page title, when there is one, as a first-level heading.
pub(crate) fn html_to_markdown(html: &str) -> Result<String, String> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "head", "script", "style", "noscript", "template", "iframe", "svg", "canvas",
        ])
        .build();
    let body = converter.convert(html).map_err(|e| e.to_string())?;
    let body = collapse_blank_lines(&body);
    let title = title_of(html)
        .and_then(|t| htmd::convert(&t).ok())
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    Ok(match title {
        Some(t) if !body.trim_start().starts_with(&format!("# {t}")) => {
            format!("# {t}\n\n{body}")
        }
        _ => body,
    })
}

/// The raw contents of the first `<title>` element.
fn title_of(html: &str) -> Option<String> {
    let mut end = html.len().min(64 * 1024);
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    let head = &html[..end];
    // ASCII lowercasing keeps byte offsets, so they index `head` too.
    let lower = head.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let close = start + lower[start..].find("</title")?;
    head.get(start..close).map(str::to_owned)
}

/// At most one blank line in a row, no trailing whitespace at the end.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_are_classified() {
        assert_eq!(classify("text/html"), Some(Kind::Html));
        assert_eq!(classify("application/json"), Some(Kind::Text));
        assert_eq!(classify("application/vnd.api+json"), Some(Kind::Text));
        assert_eq!(classify("text/plain"), Some(Kind::Text));
        assert_eq!(classify("image/png"), Some(Kind::Binary));
        assert_eq!(classify("application/pdf"), Some(Kind::Binary));
        assert_eq!(classify("application/octet-stream"), None);
        assert_eq!(classify(""), None);
        assert_eq!(
            parse_content_type("Text/HTML; Charset=\"ISO-8859-1\""),
            ("text/html".to_owned(), Some("iso-8859-1".to_owned()))
        );
    }

    #[test]
    fn sniffing_tells_text_from_binary() {
        assert_eq!(sniff(b"hello\nworld"), Kind::Text);
        assert_eq!(sniff(b"  <!DOCTYPE html><p>x"), Kind::Html);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Kind::Binary);
        assert_eq!(
            sniff(&[0xff, 0xfe, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46]),
            Kind::Binary
        );
        // a body cut in the middle of a character is still text
        assert_eq!(sniff("héé".as_bytes().split_last().unwrap().1), Kind::Text);
    }

    #[test]
    fn latin1_is_decoded() {
        assert_eq!(
            decode(&[0x63, 0x61, 0x66, 0xe9], Some("iso-8859-1")),
            "café"
        );
        assert_eq!(decode("café".as_bytes(), None), "café");
    }

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let md = html_to_markdown(
            "<html><head><title>The &amp; Title</title><style>p{color:red}</style></head>\
             <body><h2>Part</h2><script>alert(1)</script><p>Some <b>bold</b> text.</p>\n\n\n\n<ul><li>one</li></ul></body></html>",
        )
        .unwrap();
        assert!(md.starts_with("# The & Title\n\n## Part"), "{md}");
        assert!(md.contains("Some **bold** text."), "{md}");
        assert!(!md.contains("alert"), "{md}");
        assert!(!md.contains("color:red"), "{md}");
        assert!(!md.contains("\n\n\n"), "{md}");
    }
}
