//! `data/market.sql` is what `data/generate.py` writes (needs python3;
//! without it the test says so and passes).

use std::process::Command;

use super::example_dir;

#[test]
fn the_data_set_is_what_the_generator_writes() {
    let script = example_dir().join("data/generate.py");
    let Ok(out) = Command::new("python3").arg(&script).output() else {
        eprintln!("SKIPPED: no python3 to run {}", script.display());
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked_in = std::fs::read(example_dir().join("data/market.sql")).unwrap();
    assert!(
        out.stdout == checked_in,
        "data/market.sql is out of date: run `python3 data/generate.py > data/market.sql`"
    );
}
