//! NVRTC's warnings about a generated kernel (an integer operation out of range, a shift
//! count too large): each points at a translation that differs from the Rust it came from,
//! so they are shown in debug builds instead of being dropped with the log.

use std::sync::OnceLock;

/// The warnings in an NVRTC log of a successful compile, without ptxas's resource report
/// and NVRTC's hint on suppressing them; `None` if there are none.
pub fn warnings(log: &str) -> Option<String> {
    let kept: Vec<&str> = log
        .lines()
        .filter(|l| !l.starts_with("ptxas info") && !l.starts_with("ptxas         "))
        .filter(|l| !l.starts_with("Remark: The warnings can be suppressed"))
        .collect();
    let text = kept.join("\n").trim().to_string();
    text.contains("warning").then_some(text)
}

/// True when warnings are printed: in debug builds, or with `ONGPU_NVRTC_WARNINGS=1`
/// (`ONGPU_NVRTC_WARNINGS=0` silences them).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| match std::env::var("ONGPU_NVRTC_WARNINGS") {
        Ok(v) if v == "0" => false,
        Ok(v) if !v.is_empty() => true,
        _ => cfg!(debug_assertions),
    })
}

/// Prints the warnings of the compile of `what` to stderr, if there are any and printing is
/// on. Called once per compiled kernel.
pub(crate) fn report(what: &str, log: &str) {
    if let Some(w) = warnings(log).filter(|_| enabled()) {
        eprintln!("ongpu: NVRTC warnings for {what} (ONGPU_DUMP_SOURCE=1 prints the source):\n{w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_warnings_and_drops_the_resource_report() {
        let log = "k.cu(3): warning #61-D: integer operation result is out of range\n    int big = 100000 * 100000;\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\nptxas info    : 0 bytes gmem\nptxas info    : Used 8 registers\n";
        let w = warnings(log).unwrap();
        assert!(w.starts_with("k.cu(3): warning #61-D"), "{w}");
        assert!(!w.contains("ptxas") && !w.contains("Remark"), "{w}");
        assert_eq!(
            warnings("ptxas info    : Used 8 registers, 0 bytes spill stores\n"),
            None
        );
        assert_eq!(warnings(""), None);
    }
}
