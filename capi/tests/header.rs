//! `include/flatmodel.h` is what cbindgen makes of `src/` today: this test fails when the
//! committed header is stale. `FLATMODEL_BLESS=1` writes the header instead.

use std::path::Path;

#[test]
fn header_is_fresh() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings =
        cbindgen::Builder::new().with_crate(crate_dir).with_config(config).generate().expect("cbindgen reads src/");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let path = crate_dir.join("include/flatmodel.h");
    if std::env::var_os("FLATMODEL_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("write include/flatmodel.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/flatmodel.h is stale: run `FLATMODEL_BLESS=1 cargo test -p flatmodel-capi --test header`"
    );
}
