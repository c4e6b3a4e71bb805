//! Holes the files red team found in the file rules and the protected
//! paths, one table per cause.
//!
//! C: `mv src src2` moved a directory holding what `deny Edit(./src/locked/**)`
//! (or a Read deny) protects; the files were then written or read under
//! `src2/locked`, a name no rule knows, and moved back. A move of a
//! directory now changes (and may expose) everything in it.
//!
//! D: `cp -r tmpd/. src/`, `rsync -a tmpd/ src/`, `cp -r nested/. .` wrote,
//! under the destination, the names the source tree holds (`src/locked/a.rs`,
//! `./.git/config`) while only the destination was checked. Where a tree
//! lands is now checked as changed inside against the Edit rules, and the
//! protected names the tree holds as writes of protected paths.
//!
//! G: an operand of a program tack does not know to leave its files alone
//! (`objcopy … .git/config`, `gcc -o .git/hooks/pre-commit`, `pip install
//! --target .git`) met Edit deny rules but not the protected paths, in
//! dontAsk too; the safeguard now sees it.
//!
//! I: `python3 -m timeit CODE`, `-m pdb -c CODE`, `| python3 -m code` ran
//! code under `allow Bash(python3 *)` that no rule saw, and `-m zipfile -e`,
//! `-m venv`, `-m cProfile -o` wrote unseen: the standard library's modules
//! that take code are code that acts (as `-c` is), the ones that write say
//! where.
//!
//! E: a repository that sets `core.hooksPath` (`.githooks`) runs the
//! hooks there, which no protected name covered: Write/Edit in acceptEdits
//! planted a pre-commit hook. The configured directory is protected now
//! (read from `.git/config`'s text, or a user's `~/.gitconfig`).
//!
//! J: vim's Ex commands on the command line (`-c 'r .env'`, `+'w! .git/config'`)
//! met Bash rules only; the files they name are now read or written, and
//! any command that is not plainly harmless is code that acts.

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, case_in, run_with_files};

const LOCKED: &[&str] = &["mode acceptEdits", "deny Edit(./src/locked/**)"];
const LOCKED_READ: &[&str] = &["mode acceptEdits", "deny Read(./src/locked/**)"];
const MV: &[&str] = &["allow Bash(mv *)", "deny Edit(./src/locked/**)"];
const RSYNC: &[&str] = &[
    "mode acceptEdits",
    "allow Bash(rsync *)",
    "deny Edit(./src/locked/**)",
];
const ACCEPT: &[&str] = &["mode acceptEdits"];
const DONT_ASK: &[&str] = &["mode dontAsk", "allow Bash"];
const GCC: &[&str] = &["mode acceptEdits", "allow Bash(gcc *)"];
const OBJCOPY: &[&str] = &["mode dontAsk", "allow Bash(objcopy *)"];
const ALLOW_ALL: &[&str] = &[
    "mode acceptEdits",
    "allow Bash",
    "allow Edit",
    "allow Write",
];
const LOCKED_ALLOW_ALL: &[&str] = &[
    "mode acceptEdits",
    "allow Bash",
    "allow Edit",
    "allow Write",
    "deny Edit(./src/locked/**)",
];

const FILES: &[(&str, &str, bool)] = &[
    ("src/locked/a.rs", "locked", false),
    ("src/ok/b.rs", "ok", false),
    ("tmpd/locked/a.rs", "pwned", false),
    ("nested/.git/config", "[core]", false),
    ("nested/.claude/settings.local.json", "{}", false),
    ("nested/readme.md", "x", false),
    ("plain/readme.md", "x", false),
    ("plain/sub/x.txt", "x", false),
    ("x.c", "int main(){}", false),
];

const MOVED_ANCESTOR: &[Case] = &[
    case(
        LOCKED,
        "Bash",
        "mv src src2 && echo pwned > src2/locked/a.rs && mv src2 src",
        Ask,
    ),
    case(LOCKED, "Bash", "mv src src2", Ask),
    case(LOCKED, "Bash", "mv -t plain src", Ask),
    case(MV, "Bash", "mv src src2", Ask),
    case(
        RSYNC,
        "Bash",
        "rsync -a --remove-source-files src/ elsewhere/",
        Ask,
    ),
    case(
        RSYNC,
        "Bash",
        "rsync --remove-source-files src/locked/a.rs elsewhere/",
        Deny,
    ),
    case(RSYNC, "Bash", "rsync -a src/ elsewhere/", Allow),
    case(
        LOCKED_READ,
        "Bash",
        "mv src src2 && cat src2/locked/a.rs; mv src2 src",
        Deny,
    ),
    case(LOCKED, "Bash", "mv src/locked x", Deny),
    // A move that holds nothing a rule names, or a file, is as before.
    case(LOCKED, "Bash", "mv plain plain2", Allow),
    case(LOCKED, "Bash", "mv docs docs2", Allow),
    case(LOCKED, "Bash", "mv x.c y.c", Allow),
    case(MV, "Bash", "mv plain plain2", Allow),
    // Protected names move with their directory.
    case(ACCEPT, "Bash", "mv .git x", Ask),
    case(ACCEPT, "Bash", "mv nested n2", Ask),
];

const COPIED_INTO_ANCESTOR: &[Case] = &[
    case(LOCKED, "Bash", "cp -r tmpd/locked src/", Deny),
    case(LOCKED, "Bash", "cp -r tmpd/. src/", Ask),
    case(LOCKED, "Bash", "cp -rT tmpd src", Ask),
    case(LOCKED, "Bash", "cp -a tmpd/. src", Ask),
    case(LOCKED, "Bash", "cp -r tmpd/. src/ok/..", Ask),
    case(LOCKED, "Bash", "cp -r -t src tmpd/locked", Deny),
    case(LOCKED, "Bash", "cp -r tmpd/* src/", Deny),
    case(LOCKED, "Bash", "mv t*/locked src/", Deny),
    case(ACCEPT, "Bash", "cp -r nested/.[!.]* .", Ask),
    case(ACCEPT, "Bash", "cp -r plain/* docs/", Allow),
    case(
        LOCKED,
        "Bash",
        "mkdir -p t2/locked && echo pwned > t2/locked/a.rs && cp -r t2/. src/",
        Ask,
    ),
    case(RSYNC, "Bash", "rsync -a tmpd/ src/", Ask),
    case(RSYNC, "Bash", "rsync -a tmpd/locked src", Deny),
    case(RSYNC, "Bash", "rsync -a tmpd src/", Allow),
    case(ACCEPT, "Bash", "cp -r nested/. .", Ask),
    case(ACCEPT, "Bash", "cp -rT nested .", Ask),
    case(ACCEPT, "Bash", "cp -a nested/. docs", Ask),
    case(ALLOW_ALL, "Bash", "rsync -a nested/ out/", Ask),
    case(
        &["mode dontAsk", "allow Bash"],
        "Bash",
        "cp -r nested/. .",
        Deny,
    ),
    // Trees that hold nothing protected, into places no rule speaks for.
    case(ACCEPT, "Bash", "cp -r plain/. docs/", Allow),
    case(ACCEPT, "Bash", "cp -r plain out", Allow),
    case(ACCEPT, "Bash", "cp -r tmpd out", Allow),
    case(ALLOW_ALL, "Bash", "rsync -a plain/ out/", Allow),
    case(LOCKED_ALLOW_ALL, "Bash", "cp -r plain/. docs/", Allow),
    case(LOCKED_ALLOW_ALL, "Bash", "cp x.c src/", Allow),
];

const UNKNOWN_OUTPUTS: &[Case] = &[
    case(
        OBJCOPY,
        "Bash",
        "objcopy -I binary -O binary newcfg .git/config",
        Deny,
    ),
    case(
        OBJCOPY,
        "Bash",
        "objcopy -I binary -O binary newcfg .claude/settings.local.json",
        Deny,
    ),
    case(GCC, "Bash", "gcc -o .git/hooks/pre-commit x.c", Ask),
    case(DONT_ASK, "Bash", "gcc -o .git/hooks/pre-commit x.c", Deny),
    case(DONT_ASK, "Bash", "gcc -o.git/hooks/pre-commit x.c", Deny),
    case(DONT_ASK, "Bash", "cc x.c -o .git/hooks/pre-commit", Deny),
    case(
        DONT_ASK,
        "Bash",
        "rustc -o .git/hooks/pre-commit x.rs",
        Deny,
    ),
    case(DONT_ASK, "Bash", "go build -o .git/hooks/pre-commit", Deny),
    case(DONT_ASK, "Bash", "cargo build --target-dir .git", Deny),
    case(DONT_ASK, "Bash", "pip install --target=.git x", Deny),
    case(DONT_ASK, "Bash", "pip install --target .git x", Deny),
    case(DONT_ASK, "Bash", "npm install --prefix .git", Deny),
    case(DONT_ASK, "Bash", "ld -o .git/x a.o", Deny),
    case(DONT_ASK, "Bash", "go build -o=.git/hooks/pre-commit", Deny),
    case(DONT_ASK, "Bash", "ffmpeg -i x .vscode/settings.json", Deny),
    case(DONT_ASK, "Bash", "mytool --out=.git/hooks/pre-commit", Deny),
    case(DONT_ASK, "Bash", "g++ -o ~/.bashrc x.c", Deny),
    case(ALLOW_ALL, "Bash", "black .claude/settings.local.json", Ask),
    case(
        ALLOW_ALL,
        "Bash",
        "prettier --write .vscode/settings.json",
        Ask,
    ),
    case(ALLOW_ALL, "Bash", "./build.sh .git/config", Ask),
    // With Edit rules the operand was seen by them; now by the safeguard too.
    case(
        LOCKED_ALLOW_ALL,
        "Bash",
        "mytool .git/hooks/pre-commit",
        Ask,
    ),
    case(
        &["mode dontAsk", "allow Bash", "deny Edit(./src/locked/**)"],
        "Bash",
        "objcopy -I binary -O binary newcfg .git/config",
        Deny,
    ),
    // Everyday forms still allowed.
    case(DONT_ASK, "Bash", "gcc -o app x.c", Allow),
    case(DONT_ASK, "Bash", "gcc -I./include -o out/app x.c", Allow),
    case(DONT_ASK, "Bash", "cargo build --target-dir target", Allow),
    case(DONT_ASK, "Bash", "black .", Allow),
    case(DONT_ASK, "Bash", "prettier --write .", Allow),
    case(DONT_ASK, "Bash", "cat .git/config", Allow),
    case(DONT_ASK, "Bash", "grep -n x .git/config", Allow),
    case(DONT_ASK, "Bash", "jq . .vscode/settings.json", Allow),
    case(DONT_ASK, "Bash", "git diff .git", Allow),
];

const PY_RULES: &[&str] = &[
    "mode dontAsk",
    "allow Bash(python3 *)",
    "deny Read(./.env)",
    "deny Edit(./src/locked/**)",
];
const PY_BASH_DENY: &[&str] = &["allow Bash(python3 *)", "deny Bash(rm *)"];
const PY_ONLY: &[&str] = &["mode dontAsk", "allow Bash(python3 *)"];

const PYTHON_MODULES: &[Case] = &[
    case(
        PY_RULES,
        "Bash",
        "python3 -m timeit -n1 -r1 -s \"print(open('.env').read())\" 0",
        Deny,
    ),
    case(
        PY_BASH_DENY,
        "Bash",
        "python3 -m timeit -n1 -r1 \"import os; os.system('rm -rf src')\"",
        Ask,
    ),
    case(
        PY_RULES,
        "Bash",
        "python3 -m pdb -c \"print(open('.env').read())\" -c q x.py",
        Deny,
    ),
    case(
        PY_RULES,
        "Bash",
        "echo \"print(open('.env').read())\" | python3 -m code",
        Deny,
    ),
    case(
        PY_RULES,
        "Bash",
        "python3 -m cProfile -m timeit -n1 -r1 \"print(open('.env').read())\"",
        Deny,
    ),
    case(
        PY_RULES,
        "Bash",
        "python3 -m trace --count -m timeit x",
        Deny,
    ),
    case(PY_RULES, "Bash", "python3 -mtimeit \"open('.env')\"", Deny),
    case(PY_ONLY, "Bash", "python3 -m zipfile -e z.zip .claude", Deny),
    case(
        PY_ONLY,
        "Bash",
        "python3 -m timeit -n1 \"open('.git/hooks/pre-commit','w')\"",
        Deny,
    ),
    case(
        &["mode dontAsk", "allow Bash"],
        "Bash",
        "node -e \"require('fs').writeFileSync('.claude/settings.local.json','{}')\"",
        Deny,
    ),
    case(PY_ONLY, "Bash", "python3 -c 'print(1)'", Allow),
    case(PY_RULES, "Bash", "python3 -m zipfile -e z.zip src", Deny),
    case(PY_ONLY, "Bash", "python3 -m gzip -d .git/x.gz", Deny),
    case(PY_ONLY, "Bash", "python3 -m venv .git/hooks", Deny),
    case(PY_RULES, "Bash", "python3 -m venv src", Deny),
    case(
        PY_ONLY,
        "Bash",
        "python3 -m cProfile -o .git/config x.py",
        Deny,
    ),
    case(
        PY_ONLY,
        "Bash",
        "python3 -m json.tool in.json .git/config",
        Deny,
    ),
    case(PY_RULES, "Bash", "python3 -m http.server", Deny),
    case(
        PY_RULES,
        "Bash",
        "python3 -m http.server --directory=. 8000",
        Deny,
    ),
    // Modules that only compute, print or build their own tree.
    case(
        PY_RULES,
        "Bash",
        "python3 -m timeit '\"-\".join(str(n) for n in range(100))'",
        Allow,
    ),
    case(PY_RULES, "Bash", "python3 -m pytest", Allow),
    case(PY_RULES, "Bash", "python3 -m json.tool docs/x.json", Allow),
    case(PY_RULES, "Bash", "python3 -m venv .venv", Allow),
    case(
        PY_RULES,
        "Bash",
        "python3 -m http.server -d docs 8000",
        Allow,
    ),
    case(PY_RULES, "Bash", "python3 -m zipfile -l z.zip", Allow),
    case(PY_RULES, "Bash", "python3 -m cProfile -s time x.py", Allow),
    case(
        PY_RULES,
        "Bash",
        "python3 -m pip install -r requirements.txt",
        Allow,
    ),
];

const VIM_RULES: &[&str] = &[
    "mode dontAsk",
    "allow Bash",
    "deny Read(./.env)",
    "deny Edit(./src/locked/**)",
];
const VIM_ONLY: &[&str] = &["mode dontAsk", "allow Bash"];

const VIM_COMMANDS: &[Case] = &[
    case(
        VIM_RULES,
        "Bash",
        "vim -es -c 'r .env' -c 'w! out' -c q x.c",
        Deny,
    ),
    case(
        VIM_RULES,
        "Bash",
        "vim -es -c 'e .env' -c 'w! out' -c q",
        Deny,
    ),
    case(
        VIM_RULES,
        "Bash",
        "ex -s -c 'r .env' -c 'w! out' -c q x",
        Deny,
    ),
    case(
        VIM_RULES,
        "Bash",
        "vim -es -c 'w! src/locked/a.rs' -c q x.c",
        Deny,
    ),
    case(VIM_RULES, "Bash", "vim -c 'r!cat .env' x.c", Deny),
    case(
        VIM_RULES,
        "Bash",
        "vim -c 'normal ggdG' -c 'source x.vim' x.c",
        Deny,
    ),
    case(VIM_RULES, "Bash", "vim -S s.vim x.c", Deny),
    case(
        VIM_ONLY,
        "Bash",
        "vim -es -c 'w! .git/config' -c q x.c",
        Deny,
    ),
    case(VIM_ONLY, "Bash", "vim -es +'w! .git/config' +q x.c", Deny),
    case(
        VIM_ONLY,
        "Bash",
        "nvim --headless -c 'w! .git/config' -c q x",
        Deny,
    ),
    case(
        VIM_ONLY,
        "Bash",
        "vim -c 'saveas .claude/settings.local.json' x.c",
        Deny,
    ),
    case(VIM_ONLY, "Bash", "view -c 'w >> ~/.bashrc' x.c", Deny),
    case(VIM_ONLY, "Bash", "vim -c 'silent w! .git/config' x.c", Deny),
    case(VIM_ONLY, "Bash", "vim -c 'exe \"w .git/config\"' x.c", Deny),
    case(
        VIM_ONLY,
        "Bash",
        "vim -c 'call writefile([], \".git/hooks/pre-commit\")' x.c",
        Deny,
    ),
    case(
        VIM_ONLY,
        "Bash",
        "vim -c 'redir > .claude/settings.json' x.c",
        Deny,
    ),
    case(VIM_ONLY, "Bash", "vim -c 'silent %s/a/b/' -c wq x.c", Allow),
    // Plain forms.
    case(VIM_RULES, "Bash", "vim +10 x.c", Allow),
    case(VIM_RULES, "Bash", "vim +/main x.c", Allow),
    case(VIM_RULES, "Bash", "vim -c 'set nu' x.c", Allow),
    case(VIM_RULES, "Bash", "vim -es -c '%s/a/b/g' -c wq x.c", Allow),
    case(VIM_RULES, "Bash", "vim -c wq x.c", Allow),
    case(
        &["allow Bash", "allow Edit", "deny Read(./.env)"],
        "Bash",
        "vim -es -c 'w out.txt' -c q x.c",
        Allow,
    ),
];

#[test]
fn c_moving_a_directory_moves_what_rules_protect_inside() {
    run_with_files(FILES, MOVED_ANCESTOR);
}

#[test]
fn d_a_tree_copied_into_a_directory_writes_the_names_it_holds() {
    run_with_files(FILES, COPIED_INTO_ANCESTOR);
}

#[test]
fn g_outputs_of_unknown_programs_meet_the_protected_paths() {
    run_with_files(FILES, UNKNOWN_OUTPUTS);
}

#[test]
fn i_python_modules_that_take_code_or_write_are_judged() {
    run_with_files(FILES, PYTHON_MODULES);
}

#[test]
fn j_vim_ex_commands_read_and_write_what_they_name() {
    run_with_files(FILES, VIM_COMMANDS);
}

const HOOKS: &[Case] = &[
    case(ACCEPT, "Write", ".githooks/pre-commit", Ask),
    case(ACCEPT, "Edit", ".githooks/pre-commit", Ask),
    case(ACCEPT, "Bash", "echo x > .githooks/pre-commit", Ask),
    case(ACCEPT, "Bash", "cp x.c .githooks/", Ask),
    case(DONT_ASK, "Bash", "chmod +x .githooks/pre-commit", Deny),
    case(ACCEPT, "Write", ".githooks", Ask),
    // The rest of the repository as before.
    case(ACCEPT, "Write", "githooks.md", Allow),
    case(ACCEPT, "Write", "src/hooks.rs", Allow),
];

#[test]
fn e_the_configured_hooks_directory_is_protected() {
    run_with_files(
        &[
            (
                ".git/config",
                "[core]\n\tbare = false\n\thooksPath = .githooks\n",
                false,
            ),
            (".githooks/pre-commit", "#!/bin/sh\n", true),
        ],
        HOOKS,
    );
    // Through a `.git` file (a worktree or submodule) and `~`.
    run_with_files(
        &[
            (".git", "gitdir: ../gitdir\n", false),
            (
                "../gitdir/config",
                "[core]\n\thooksPath = tools/hooks\n",
                false,
            ),
        ],
        &[
            case(ACCEPT, "Write", "tools/hooks/pre-push", Ask),
            case(ACCEPT, "Write", "tools/other", Allow),
        ],
    );
    run_with_files(
        &[
            (
                "../home/.gitconfig",
                "[core]\n\thooksPath = ~/hooks\n",
                false,
            ),
            (".git/HEAD", "ref: refs/heads/main\n", false),
        ],
        &[
            case(&["allow Write"], "Write", "~/hooks/pre-commit", Ask),
            case(&["allow Write"], "Write", "~/notes.txt", Allow),
        ],
    );
}

#[test]
fn e_other_shells_start_up_files_are_protected() {
    run_with_files(
        &[],
        &[
            case(&["allow Write"], "Write", "~/.kshrc", Ask),
            case(&["allow Write"], "Write", "~/.cshrc", Ask),
            case(&["allow Write"], "Write", "~/.tcshrc", Ask),
            case(&["allow Write"], "Write", "~/.login", Ask),
            case(&["allow Write"], "Write", "~/.xonshrc", Ask),
            case(&["allow Write"], "Write", "~/.bash_completion", Ask),
            case(&["allow Write"], "Write", "~/.inputrc", Ask),
            case(&["allow Write"], "Write", "~/.config/fish/config.fish", Ask),
            case(
                &["allow Write"],
                "Write",
                "~/.config/fish/conf.d/x.fish",
                Ask,
            ),
            case(
                &["allow Write"],
                "Write",
                "~/.config/nushell/config.nu",
                Ask,
            ),
            case(
                &["allow Write"],
                "Write",
                "~/.local/share/bash-completion/completions/git",
                Ask,
            ),
            case(&["allow Write"], "Write", "~/notes.txt", Allow),
            case(&["allow Write"], "Write", "~/.config/app/x.toml", Allow),
        ],
    );
}

// A git directory under another name than `.git`: git takes a directory
// holding `HEAD`, `objects/` and `refs/` for a repository's own directory
// (as a bare repository), in the working directory or any above it before a
// `.git`. Four plain writes made `src` one, and the next `git status` (no
// rule needed, plan mode too) ran the `core.fsmonitor` of `src/config`.
const GIT_LOOKALIKE: &[(&str, &str, bool)] = &[
    ("bare/HEAD", "ref: refs/heads/main\n", false),
    ("bare/objects/.keep", "", false),
    ("bare/refs/.keep", "", false),
    ("half/HEAD", "ref: refs/heads/main\n", false),
    ("half/objects/.keep", "", false),
];

const GIT_DIRECTORIES: &[Case] = &[
    case(ACCEPT, "Write", "bare/config", Ask),
    case(ACCEPT, "Edit", "bare/HEAD", Ask),
    case(ACCEPT, "Write", "bare/hooks/pre-commit", Ask),
    // The write that completes one.
    case(ACCEPT, "Write", "half/refs/heads/main", Ask),
    case(&["allow Bash"], "Bash", "mkdir -p half/refs/heads", Ask),
    // Not (yet) one: ordinary files named like git's.
    case(ACCEPT, "Write", "half/config", Allow),
    case(ACCEPT, "Write", "src/config", Allow),
    case(ACCEPT, "Write", "docs/HEAD", Allow),
    // git run where it would take such a directory for the repository.
    case_in("bare", &[], "Bash", "git status", Ask),
    case_in("bare", &["mode plan"], "Bash", "git log --oneline", Deny),
    case_in("src", &[], "Bash", "git status", Allow),
    case(&[], "Bash", "git status", Allow),
];

#[test]
fn a_directory_git_takes_for_a_repository_is_protected_like_dot_git() {
    run_with_files(GIT_LOOKALIKE, GIT_DIRECTORIES);
}
