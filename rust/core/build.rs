//! Generates `Code`, the finding codes the core emits, from the rule registry's `codes.toml`
//! files (`python/eagle3_inspect/rules/<folder>/codes.toml`): each code's severity is written
//! once, there, and the core reads it from here at build time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The registry folders whose codes the core emits (the others are Python checks').
const CORE_FOLDERS: [&str; 3] = ["st_ix", "vm", "pt"];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let rules = manifest.join("../../python/eagle3_inspect/rules");
    let mut codes = Vec::new();
    for folder in CORE_FOLDERS {
        let path = rules.join(folder).join("codes.toml");
        println!("cargo:rerun-if-changed={}", path.display());
        codes.extend(read_codes(&path));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("codes.rs");
    std::fs::write(&out, generate(&codes)).expect("OUT_DIR is writable");
}

/// (code, severity variant, summary) of each entry of one codes.toml, in file order.
fn read_codes(path: &Path) -> Vec<(String, &'static str, String)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the core's codes come from it)", path.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut codes = Vec::new();
    for (code, entry) in &table {
        let field = |key: &str| entry.get(key).and_then(toml::Value::as_str);
        let severity = match field("severity") {
            Some("error") => "Error",
            Some("warning") => "Warning",
            Some("info") => "Info",
            other => panic!("{}: [{code}] severity {other:?}", path.display()),
        };
        let summary = field("summary").unwrap_or_default().to_owned();
        codes.push((code.clone(), severity, summary));
    }
    codes
}

fn generate(codes: &[(String, &'static str, String)]) -> String {
    let mut out = String::new();
    let w = &mut out;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "/// A finding code the core emits (generated from codes.toml)."
    );
    let _ = writeln!(w, "#[allow(clippy::upper_case_acronyms)]");
    let _ = writeln!(
        w,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]"
    );
    let _ = writeln!(w, "pub enum Code {{");
    for (code, _, summary) in codes {
        let _ = writeln!(w, "    /// {}", summary.replace('\n', " "));
        let _ = writeln!(w, "    {code},");
    }
    let _ = writeln!(w, "}}\n\nimpl Code {{");
    let _ = writeln!(w, "    /// Every code, in code order.");
    let _ = writeln!(w, "    pub const ALL: [Code; {}] = [", codes.len());
    for (code, _, _) in codes {
        let _ = writeln!(w, "        Code::{code},");
    }
    let _ = writeln!(w, "    ];\n");
    let _ = writeln!(w, "    /// The code as written in reports (`\"ST001\"`).");
    let _ = writeln!(w, "    pub const fn as_str(self) -> &'static str {{");
    let _ = writeln!(w, "        match self {{");
    for (code, _, _) in codes {
        let _ = writeln!(w, "            Code::{code} => \"{code}\",");
    }
    let _ = writeln!(w, "        }}\n    }}\n");
    let _ = writeln!(w, "    /// The severity codes.toml gives the code.");
    let _ = writeln!(w, "    pub const fn severity(self) -> Severity {{");
    let _ = writeln!(w, "        match self {{");
    for (code, severity, _) in codes {
        let _ = writeln!(w, "            Code::{code} => Severity::{severity},");
    }
    let _ = writeln!(w, "        }}\n    }}\n}}");
    out
}
