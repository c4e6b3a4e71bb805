//! The permission classification of NotebookEdit (an edit of the file at
//! `notebook_path`), WebSearch (a rule kind of its own, like Claude Code's
//! `WebSearch`), and Read of notebooks and PDFs.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const NOTEBOOK_EDIT: &[Case] = &[
    case(
        &["deny NotebookEdit(./secret.ipynb)"],
        "NotebookEdit",
        "secret.ipynb",
        Deny,
    ),
    case(
        &["deny NotebookEdit(./secret.ipynb)"],
        "NotebookEdit",
        "{project}/secret.ipynb",
        Deny,
    ),
    case(
        &["deny NotebookEdit(./secret.ipynb)"],
        "NotebookEdit",
        "other.ipynb",
        Ask,
    ),
    // An Edit rule covers every edit tool, NotebookEdit included.
    case(
        &["deny Edit(./secret.ipynb)"],
        "NotebookEdit",
        "secret.ipynb",
        Deny,
    ),
    case(
        &["deny Edit(./secrets/**)"],
        "NotebookEdit",
        "link_to_secrets/n.ipynb",
        Deny,
    ),
    case(
        &["allow Edit(./docs/**)"],
        "NotebookEdit",
        "docs/a.ipynb",
        Allow,
    ),
    case(
        &["ask Edit(./docs/**)", "mode acceptEdits"],
        "NotebookEdit",
        "docs/a.ipynb",
        Ask,
    ),
    // acceptEdits applies to notebooks in the project, not outside it.
    case(&["mode acceptEdits"], "NotebookEdit", "a/n.ipynb", Allow),
    case(
        &["mode acceptEdits"],
        "NotebookEdit",
        "{root}/outside/n.ipynb",
        Ask,
    ),
    case(
        &["mode acceptEdits", "deny Edit(./a/**)"],
        "NotebookEdit",
        "a/n.ipynb",
        Deny,
    ),
    case(&["mode plan"], "NotebookEdit", "a/n.ipynb", Deny),
    case(&[], "NotebookEdit", "a/n.ipynb", Ask),
];

const WEB_SEARCH: &[Case] = &[
    case(&[], "WebSearch", "", Ask),
    case(&["deny WebSearch"], "WebSearch", "", Deny),
    case(&["allow WebSearch"], "WebSearch", "", Allow),
    case(
        &["allow WebSearch", "deny@user WebSearch"],
        "WebSearch",
        "",
        Deny,
    ),
    case(
        &["mode bypassPermissions", "deny WebSearch"],
        "WebSearch",
        "",
        Deny,
    ),
    // WebFetch rules say nothing about searching.
    case(&["allow WebFetch"], "WebSearch", "", Ask),
    case(&["deny WebSearch"], "WebFetch", "https://example.com/", Ask),
];

const READ_NOTEBOOKS_AND_PDFS: &[Case] = &[
    case(
        &["deny Read(./secrets/**)"],
        "Read",
        "secrets/n.ipynb",
        Deny,
    ),
    case(
        &["deny Read(./secrets/**)"],
        "Read",
        "secrets/report.pdf",
        Deny,
    ),
    case(&["deny Read(**/*.pdf)"], "Read", "docs/manual.pdf", Deny),
    case(&["deny Read(**/*.pdf)"], "Read", "docs/guide.md", Allow),
    case(
        &["deny Read(./secrets/**)"],
        "Read",
        "link_to_secrets/n.ipynb",
        Deny,
    ),
    case(&[], "Read", "docs/a.ipynb", Allow),
];

#[test]
fn notebook_edit_is_an_edit_of_its_notebook() {
    run(NOTEBOOK_EDIT);
}

#[test]
fn web_search_has_its_own_rule() {
    run(WEB_SEARCH);
}

#[test]
fn read_rules_hold_for_notebooks_and_pdfs() {
    run(READ_NOTEBOOKS_AND_PDFS);
}
