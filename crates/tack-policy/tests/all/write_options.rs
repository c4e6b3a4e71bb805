//! Programs that write files through their options or operands: the file
//! is an edit, judged under Edit rules in the directory the program writes
//! in, however the option is spelled (clusters, `=`, the next word, after
//! the operands). Files whose names only the run knows (`tar -x`, `unzip`,
//! `find -delete`) are edits of everything inside the directory.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

/// Writes denied in secrets/, asked in docs/, allowed in out/; the programs
/// themselves allowed.
const W: &[&str] = &[
    "deny Edit(./secrets/**)",
    "ask Edit(./docs/**)",
    "allow Edit(./out/**)",
    "allow Bash(sed *)",
    "allow Bash(sort *)",
    "allow Bash(tar *)",
    "allow Bash(find *)",
    "allow Bash(git diff *)",
    "allow Bash(git log *)",
    "allow Bash(git show *)",
    "allow Bash(git format-patch *)",
    "allow Bash(git archive *)",
    "allow Bash(git -C *)",
    "allow Bash(tee *)",
    "allow Bash(echo *)",
    "allow Bash(cat *)",
    "allow Bash(ls *)",
    "allow Bash(cd *)",
    "allow Bash(xargs *)",
    "allow Bash(cp *)",
    "allow Bash(mv *)",
    "allow Bash(install *)",
    "allow Bash(ln *)",
    "allow Bash(rsync *)",
    "allow Bash(dd *)",
    "allow Bash(curl *)",
    "allow Bash(wget *)",
    "allow Bash(split *)",
    "allow Bash(uniq *)",
    "allow Bash(patch *)",
    "allow Bash(truncate *)",
    "allow Bash(touch *)",
    "allow Bash(mkdir *)",
    "allow Bash(chmod *)",
    "allow Bash(chown *)",
    "allow Bash(unzip *)",
    "allow Bash(gzip *)",
    "allow Bash(gunzip *)",
    "allow Bash(xz *)",
    "allow Bash(gawk *)",
    "allow Bash(perl *)",
];

const B: &str = "Bash";

/// Commands whose Bash rule speaks for the files they change: only Edit
/// deny and ask rules count.
const G: &[&str] = &[
    "deny Edit(./secrets/**)",
    "ask Edit(./docs/**)",
    "allow Bash(git *)",
    "allow Bash(rm *)",
    "allow Bash(chmod *)",
    "allow Bash(chown *)",
];

const SED: &[Case] = &[
    case(W, B, "sed -i s/a/b/ secrets/key.txt", Deny),
    case(W, B, "sed -i.bak s/a/b/ secrets/key.txt", Deny),
    case(W, B, "sed --in-place s/a/b/ secrets/key.txt", Deny),
    case(W, B, "sed --in-place=.orig s/a/b/ secrets/key.txt", Deny),
    case(W, B, "sed -ni s/a/b/p secrets/key.txt", Deny),
    case(W, B, "sed -n -i s/a/b/p secrets/key.txt", Deny),
    case(W, B, "sed -Ei 's/a+/b/' secrets/key.txt", Deny),
    case(W, B, "sed -i -e s/a/b/ -- secrets/key.txt", Deny),
    case(W, B, "sed s/a/b/ -i secrets/key.txt", Deny),
    case(W, B, "sed -e s/a/b/ src/main.rs -i secrets/key.txt", Deny),
    case(W, B, "sed -i'' s/a/b/ secrets/key.txt", Deny),
    case(W, B, "cd secrets && sed -i s/a/b/ key.txt", Deny),
    case(W, B, "sed -i s/a/b/ link_to_secrets/key.txt", Deny),
    case(W, B, "sed -i s/a/b/ docs/guide.md", Ask),
    case(W, B, "sed -i s/a/b/ src/main.rs", Ask),
    case(W, B, "sed -i s/a/b/ out/x.txt", Allow),
    case(W, B, "sed -i.bak s/a/b/ out/x.txt", Allow),
    // The backup copy is written too.
    case(W, B, "sed -i'../secrets/*' s/a/b/ out/x.txt", Ask),
    case(W, B, "sed s/a/b/ secrets/key.txt", Allow),
    case(W, B, "sed -n '1,5p' src/main.rs", Allow),
    // `w FILE` and `s///w FILE` inside the script.
    case(W, B, "sed 'w secrets/copy' src/main.rs", Deny),
    case(W, B, "sed -n '/x/w secrets/copy' src/main.rs", Deny),
    case(W, B, "sed 's/a/b/w secrets/copy' src/main.rs", Deny),
    case(W, B, "sed 's/a/b/gw secrets/copy' src/main.rs", Deny),
    case(W, B, "sed -e p -e 'w secrets/copy' src/main.rs", Deny),
    case(W, B, "sed --expression='1W secrets/copy' src/main.rs", Deny),
    case(W, B, "sed '1w out/copy' src/main.rs", Allow),
    case(W, B, "sed 's/a/b/w notes.txt' src/main.rs", Ask),
    // Files it gets at run time, options it does not know.
    case(W, B, "ls | xargs sed -i s/a/b/", Ask),
    case(W, B, "find . -name '*.rs' -exec sed -i s/a/b/ {} +", Ask),
    case(W, B, "sed -i s/a/b/ \"$F\"", Ask),
    case(W, B, "sed --frobnicate -i s/a/b/ out/x.txt", Ask),
    case(W, B, "sed -f script.sed -i out/x.txt", Ask),
    case(W, B, "sed \"$SCRIPT\" src/main.rs", Ask),
];

const OUTPUT_OPTIONS: &[Case] = &[
    case(W, B, "sort -o secrets/x src/main.rs", Deny),
    case(W, B, "sort --output=secrets/x src/main.rs", Deny),
    case(W, B, "sort --output secrets/x src/main.rs", Deny),
    case(W, B, "sort -ro secrets/x src/main.rs", Deny),
    case(W, B, "sort -rosecrets/x src/main.rs", Deny),
    case(W, B, "sort src/main.rs -o secrets/x", Deny),
    case(W, B, "sort -o docs/x src/main.rs", Ask),
    case(W, B, "sort -o notes.txt src/main.rs", Ask),
    case(W, B, "sort -o out/sorted src/main.rs", Allow),
    case(W, B, "sort -u src/main.rs", Allow),
    // sort reads a unique prefix of a long option as the option (getopt_long).
    case(W, B, "sort --outp=secrets/x src/main.rs", Deny),
    case(W, B, "sort --out out/x src/main.rs", Allow),
    case(W, B, "sort --compress-prog=sh src/main.rs", Ask),
    case(W, B, "uniq --group src/main.rs", Allow),
    case(W, B, "uniq --group=both src/main.rs secrets/x", Deny),
    case(W, B, "uniq src/main.rs secrets/x", Deny),
    case(W, B, "uniq -c src/main.rs out/x", Allow),
    case(W, B, "uniq -c src/main.rs", Allow),
    case(W, B, "split -l 10 src/main.rs secrets/part-", Deny),
    case(W, B, "split src/main.rs out/part-", Allow),
    case(W, B, "split src/main.rs", Ask),
    case(W, B, "curl -o secrets/x https://example.com/f", Deny),
    case(W, B, "curl --output secrets/x https://example.com/f", Deny),
    case(W, B, "curl --output=secrets/x https://example.com/f", Deny),
    case(W, B, "curl -sSLo secrets/x https://example.com/f", Deny),
    case(
        W,
        B,
        "curl -O --output-dir secrets https://example.com/f",
        Deny,
    ),
    case(
        W,
        B,
        "cd secrets && curl -O https://example.com/f.txt",
        Deny,
    ),
    case(W, B, "curl -D secrets/headers https://example.com/", Deny),
    case(W, B, "curl -c secrets/jar https://example.com/", Deny),
    case(W, B, "curl -O https://example.com/f.txt", Ask),
    case(W, B, "curl -OJ https://example.com/f.txt", Ask),
    case(W, B, "curl -o out/f https://example.com/f", Allow),
    case(W, B, "curl -sS https://example.com/", Allow),
    case(W, B, "wget -O secrets/x https://example.com/f", Deny),
    case(
        W,
        B,
        "wget --output-document=secrets/x https://example.com/f",
        Deny,
    ),
    case(W, B, "wget -P secrets https://example.com/f", Deny),
    case(
        W,
        B,
        "wget --directory-prefix=secrets https://example.com/f",
        Deny,
    ),
    case(W, B, "wget -O out/x https://example.com/f", Allow),
    case(W, B, "wget -qO- https://example.com/f", Allow),
    case(W, B, "wget https://example.com/f", Ask),
    case(W, B, "echo hi | tee -a secrets/x", Deny),
    case(W, B, "echo hi | tee --append secrets/x", Deny),
    case(W, B, "echo hi | tee out/x", Allow),
    case(W, B, "gawk -i inplace '{print}' secrets/key.txt", Deny),
    case(W, B, "gawk '{print > \"secrets/x\"}' src/main.rs", Ask),
    case(W, B, "gawk '{print $1}' src/main.rs", Allow),
    case(W, B, "perl -pi -e 's/a/b/' secrets/key.txt", Deny),
    case(W, B, "perl -i.bak -pe 's/a/b/' secrets/key.txt", Deny),
    case(W, B, "perl -pi -e 's/a/b/' out/x", Allow),
];

const ARCHIVES: &[Case] = &[
    case(W, B, "tar -xf a.tar -C secrets", Deny),
    case(W, B, "tar -x -f a.tar -C secrets", Deny),
    case(W, B, "tar xf a.tar -C secrets", Deny),
    case(W, B, "tar -xzf a.tgz --directory=secrets", Deny),
    case(W, B, "tar -xzf a.tgz --directory secrets", Deny),
    case(W, B, "tar -C secrets -xf a.tar", Deny),
    case(W, B, "tar -xf a.tar -C out -C ../secrets", Deny),
    case(W, B, "cd secrets && tar -xf ../a.tar", Deny),
    case(W, B, "tar -xf a.tar -C docs", Ask),
    // Into the project: the archive may hold secrets/…
    case(W, B, "tar -xf a.tar", Ask),
    case(W, B, "tar -xf a.tar -C out", Allow),
    case(W, B, "tar -xPf a.tar -C out", Ask),
    case(W, B, "tar -xf a.tar -C out --frobnicate", Ask),
    case(W, B, "tar -cf secrets/a.tar src", Deny),
    case(W, B, "tar cf secrets/a.tar src", Deny),
    case(W, B, "tar -czf secrets/a.tgz src", Deny),
    case(W, B, "tar --file=secrets/a.tar -c src", Deny),
    case(W, B, "tar -f secrets/a.tar -c src", Deny),
    case(W, B, "tar -rf secrets/a.tar src", Deny),
    case(W, B, "tar -czf out/a.tgz src", Allow),
    case(W, B, "tar -tf a.tar", Allow),
    case(W, B, "tar -xOf a.tar", Allow),
    case(W, B, "unzip a.zip -d secrets", Deny),
    case(W, B, "unzip -o a.zip -d secrets", Deny),
    case(W, B, "unzip -d secrets a.zip", Deny),
    case(W, B, "unzip a.zip -x skip.txt -d secrets", Deny),
    case(W, B, "unzip a.zip", Ask),
    case(W, B, "unzip a.zip -d out", Allow),
    case(W, B, "unzip -l a.zip", Allow),
    case(W, B, "gzip secrets/key.txt", Deny),
    case(W, B, "gzip -k secrets/key.txt", Deny),
    case(W, B, "gzip -r secrets", Deny),
    case(W, B, "gunzip secrets/x.gz", Deny),
    case(W, B, "xz secrets/key.txt", Deny),
    case(W, B, "xz -d secrets/x.xz", Deny),
    case(W, B, "gzip src/main.rs", Ask),
    case(W, B, "gzip out/x", Allow),
    case(W, B, "gzip -c secrets/key.txt", Allow),
    case(W, B, "patch -o secrets/x src/main.rs fix.diff", Deny),
    case(W, B, "patch -d secrets -p1 < fix.diff", Deny),
    case(W, B, "patch secrets/key.txt < fix.diff", Deny),
    case(W, B, "patch -p1 < fix.diff", Ask),
    case(W, B, "patch -d out -p1 < fix.diff", Allow),
];

const FIND_AND_GIT: &[Case] = &[
    case(W, B, "find secrets -delete", Deny),
    case(W, B, "find secrets -name '*.txt' -delete", Deny),
    case(W, B, "find -L secrets -delete", Deny),
    case(W, B, "find docs -delete", Ask),
    case(W, B, "find . -name '*.tmp' -delete", Ask),
    case(W, B, "find -delete", Ask),
    case(W, B, "find out -name '*.o' -delete", Allow),
    case(W, B, "find . -fprint secrets/list", Deny),
    case(W, B, "find . -fls secrets/list", Deny),
    case(W, B, "find . -fprint0 secrets/list", Deny),
    case(W, B, "find . -name '*.rs'", Allow),
    case(W, B, "git diff --output=secrets/x", Deny),
    case(W, B, "git diff --output secrets/x", Deny),
    case(W, B, "git log -p --output=secrets/x", Deny),
    case(W, B, "git show --output=secrets/x HEAD", Deny),
    case(W, B, "git format-patch -o secrets HEAD~1", Deny),
    case(
        W,
        B,
        "git format-patch --output-directory=secrets HEAD~1",
        Deny,
    ),
    case(
        W,
        B,
        "git format-patch --output-directory secrets HEAD~1",
        Deny,
    ),
    case(
        W,
        B,
        "git format-patch --output=secrets/x.patch HEAD~1",
        Deny,
    ),
    case(W, B, "git archive -o secrets/a.tar HEAD", Deny),
    case(W, B, "git archive --output=secrets/a.tar HEAD", Deny),
    case(W, B, "git -C secrets diff --output=x", Deny),
    case(W, B, "git format-patch HEAD~1", Ask),
    case(W, B, "git diff --output=docs/x", Ask),
    case(W, B, "git format-patch -o out HEAD~1", Allow),
    case(W, B, "git format-patch --stdout HEAD~1", Allow),
    case(W, B, "git diff --output=out/x", Allow),
    case(W, B, "git diff --stat", Allow),
    case(W, B, "git format-patch -osecrets HEAD~1", Deny),
    case(
        W,
        B,
        "tar -xf a.tar -C out --one-top-level=../secrets",
        Deny,
    ),
    case(G, B, "git checkout main -- secrets/key.txt", Deny),
    case(G, B, "git checkout HEAD~1 secrets/key.txt", Deny),
    case(G, B, "git restore secrets/key.txt", Deny),
    case(G, B, "git restore --source=HEAD~1 -- secrets/key.txt", Deny),
    case(G, B, "git rm -r secrets", Deny),
    case(G, B, "git mv secrets/key.txt a/", Deny),
    case(G, B, "git clean -fdx secrets", Deny),
    case(G, B, "git -C secrets clean -fd", Deny),
    case(G, B, "git clean -fd", Ask),
    case(G, B, "git checkout main", Ask),
    case(G, B, "git reset --hard HEAD~1", Ask),
    case(G, B, "git stash pop", Ask),
    case(G, B, "git pull", Ask),
    case(G, B, "git apply fix.diff", Ask),
    case(G, B, "git restore docs/guide.md", Ask),
    case(G, B, "git checkout -b feature", Allow),
    case(G, B, "git restore src/main.rs", Allow),
    case(G, B, "git reset HEAD~1", Allow),
    case(G, B, "git stash list", Allow),
    case(G, B, "git clean -n", Allow),
    case(G, B, "git apply --check fix.diff", Allow),
    case(G, B, "git status", Allow),
    case(&["allow Bash(git *)"], B, "git checkout main", Allow),
    case(&["allow Bash(git *)"], B, "git pull", Allow),
];

/// File-management commands: their operands are checked against Edit deny
/// and ask rules, however they are named.
const FILE_COMMANDS: &[Case] = &[
    case(W, B, "cp src/main.rs secrets/", Deny),
    case(W, B, "cp -t secrets src/main.rs", Deny),
    case(W, B, "cp --target-directory=secrets src/main.rs", Deny),
    case(W, B, "cp -r src link_to_secrets", Deny),
    case(W, B, "mv src/main.rs secrets/x", Deny),
    case(W, B, "mv secrets /tmp/x", Deny),
    case(W, B, "install -D src/main.rs secrets/x", Deny),
    case(W, B, "install -t secrets src/main.rs", Deny),
    case(W, B, "ln -s /etc/passwd secrets/x", Deny),
    case(W, B, "rsync -a src/ secrets/", Deny),
    case(W, B, "dd if=src/main.rs of=secrets/x", Deny),
    case(W, B, "dd of=secrets/x", Deny),
    case(W, B, "truncate -s 0 secrets/key.txt", Deny),
    case(W, B, "touch secrets/x", Deny),
    case(W, B, "touch -r src/main.rs secrets/key.txt", Deny),
    case(W, B, "mkdir -p secrets/x", Deny),
    case(W, B, "mkdir -m 700 secrets/y", Deny),
    case(W, B, "chmod 600 secrets/key.txt", Deny),
    case(W, B, "chmod -R u+x secrets", Deny),
    case(W, B, "chmod --reference=src/main.rs secrets/key.txt", Deny),
    case(W, B, "chown user secrets/key.txt", Deny),
    case(W, B, "chown -R user:group secrets", Deny),
    case(W, B, "cp src/main.rs docs/", Ask),
    case(W, B, "cp \"$F\" out/", Ask),
    case(W, B, "ls | xargs cp -t secrets", Deny),
    case(W, B, "ls | xargs touch", Ask),
    case(W, B, "cp src/main.rs out/", Allow),
    case(W, B, "cp src/main.rs a/", Allow),
    case(W, B, "dd if=/dev/zero of=out/x count=1", Allow),
    case(W, B, "mkdir -p out/a/b", Allow),
    // Recursively: everything inside the directory.
    case(G, B, "rm -rf .", Ask),
    case(G, B, "rm -r -f {project}", Ask),
    case(G, B, "rm --recursive ./", Ask),
    case(G, B, "chmod -R 777 .", Ask),
    case(G, B, "chown -R nobody .", Ask),
    case(G, B, "rm -rf secrets", Deny),
    case(G, B, "rm -rf out", Allow),
    case(G, B, "rm -f x.txt", Allow),
    case(G, B, "chmod -R 755 src", Allow),
    // Removing the working directory is a critical removal: asked
    // whatever the allow rules say.
    case(&["allow Bash(rm *)"], B, "rm -rf .", Ask),
    case(&["allow Bash(rm *)"], B, "rm -rf out", Allow),
];

const MODES: &[Case] = &[
    case(
        &["mode acceptEdits", "allow Bash(sed *)"],
        B,
        "sed -i s/a/b/ src/main.rs",
        Allow,
    ),
    case(
        &["mode acceptEdits", "allow Bash(sed *)"],
        B,
        "sed -i s/a/b/ {root}/outside/file.txt",
        Ask,
    ),
    case(
        &["mode acceptEdits", "allow Bash(tar *)"],
        B,
        "tar -xf a.tar",
        Allow,
    ),
    case(
        &[
            "mode acceptEdits",
            "allow Bash(tar *)",
            "deny Edit(./secrets/**)",
        ],
        B,
        "tar -xf a.tar",
        Ask,
    ),
    case(
        &["mode bypassPermissions", "deny Edit(./secrets/**)"],
        B,
        "sort -o secrets/x src/main.rs",
        Deny,
    ),
    case(
        &["allow Edit", "allow Bash(sort *)"],
        B,
        "sort -o notes.txt src/main.rs",
        Allow,
    ),
    case(
        &["allow Bash(sort *)", "deny Edit(//etc/**)"],
        B,
        "sort -o /etc/passwd src/main.rs",
        Deny,
    ),
];

#[test]
fn sed_in_place_and_script_writes() {
    run(SED);
}

#[test]
fn output_options_are_edits() {
    run(OUTPUT_OPTIONS);
}

#[test]
fn archives_and_compressors_write_where_they_say() {
    run(ARCHIVES);
}

#[test]
fn find_delete_and_git_outputs() {
    run(FIND_AND_GIT);
}

#[test]
fn file_commands_meet_edit_rules() {
    run(FILE_COMMANDS);
}

#[test]
fn modes_judge_program_writes_as_edits() {
    run(MODES);
}
