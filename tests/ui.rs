//! Macro misuse is a compile error at the right span that says what is supported; these
//! pin the messages.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
