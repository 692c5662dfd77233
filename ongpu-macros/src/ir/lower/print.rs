//! `println!`, `print!`, `eprintln!` and `eprint!` in bodies and kernels: the format string
//! is parsed here (as `format!` reads it), every placeholder is rewritten to name its
//! argument by position, and named and inline arguments (`{x}`) become positional ones, so
//! that both backends format the same arguments with the same format.

use super::{Context, Lowerer};
use crate::ir::{Expr, Print};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Token};

/// The print macros and whether each writes to stderr and ends the line.
const PRINTS: [(&str, bool, bool); 4] = [
    ("println", false, true),
    ("print", false, false),
    ("eprintln", true, true),
    ("eprint", true, false),
];

/// The tokens of a print: an optional format and its arguments.
struct PrintArgs {
    format: Option<LitStr>,
    args: Vec<Arg>,
}

/// `value` or `name = value`.
struct Arg {
    name: Option<Ident>,
    value: syn::Expr,
}

impl Parse for PrintArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(PrintArgs {
                format: None,
                args: Vec::new(),
            });
        }
        let format: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "a print's first argument is its format: a string literal",
            )
        })?;
        let mut args = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let name = if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
                let name: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                Some(name)
            } else {
                None
            };
            let value: syn::Expr = input.parse()?;
            args.push(Arg { name, value });
        }
        Ok(PrintArgs {
            format: Some(format),
            args,
        })
    }
}

/// A piece of a format: text (escapes kept) or a placeholder.
enum Piece {
    Text(String),
    /// What names the argument (empty: the next one), and the spec after `:`.
    Hole(String, String),
}

/// The pieces of `format`, or what is wrong with it.
fn pieces(format: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push_str("{{");
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push_str("}}");
            }
            '}' => return Err("a `}` with no `{` before it (write `}}` for a brace)".into()),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => {
                            return Err("a `{` that is not closed (write `{{` for a brace)".into())
                        }
                    }
                }
                let (arg, spec) = match inner.split_once(':') {
                    Some((a, s)) => (a.trim().to_string(), s.to_string()),
                    None => (inner.trim().to_string(), String::new()),
                };
                if spec.contains('$') || spec.contains('*') {
                    return Err(format!(
                        "`{{{inner}}}` takes its width or precision from an argument, which a GPU \
                         body does not support: write the number into the format (`{{:8.3}}`)"
                    ));
                }
                out.push(Piece::Text(std::mem::take(&mut text)));
                out.push(Piece::Hole(arg, spec));
            }
            c => text.push(c),
        }
    }
    out.push(Piece::Text(text));
    Ok(out)
}

/// The rewritten format; for each of its positions, which argument it is (`Ok(k)` the
/// `k`-th of the call, `Err(name)` a local or capture named inline, `{x}`); and the first
/// argument of the call that the format does not use, if any.
type Layout = (String, Vec<Result<usize, Ident>>, Option<usize>);

/// Lays out `format`'s placeholders over `args`; `span` locates inline names.
fn layout(format: &str, args: &[Arg], span: proc_macro2::Span) -> Result<Layout, String> {
    let positional = args.iter().take_while(|a| a.name.is_none()).count();
    if args[positional..].iter().any(|a| a.name.is_none()) {
        return Err("positional arguments cannot follow named ones".into());
    }
    let mut order: Vec<Result<usize, Ident>> = (0..args.len()).map(Ok).collect();
    let mut used = vec![false; args.len()];
    let unused = |used: &[bool]| used.iter().position(|u| !u);
    let mut next = 0;
    let mut out = String::new();
    for piece in pieces(format)? {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Hole(arg, spec) => {
                let by_position = if arg.is_empty() {
                    next += 1;
                    Some(next - 1)
                } else {
                    arg.parse::<usize>().ok()
                };
                if let Some(k) = by_position.filter(|&k| k >= positional) {
                    return Err(format!(
                        "the format needs argument {k}, but the print has {positional} positional \
                         argument{}",
                        if positional == 1 { "" } else { "s" }
                    ));
                }
                let k = if let Some(k) = by_position {
                    k
                } else if let Some(k) = args
                    .iter()
                    .position(|a| a.name.as_ref().is_some_and(|n| n == &arg))
                {
                    k
                } else {
                    let name = syn::parse_str::<Ident>(&arg)
                        .map_err(|_| format!("`{{{arg}}}` names no argument"))?;
                    let inline = Err(Ident::new(&name.to_string(), span));
                    match order.iter().position(|o| o == &inline) {
                        Some(k) => k,
                        None => {
                            order.push(inline);
                            used.push(true);
                            order.len() - 1
                        }
                    }
                };
                used[k] = true;
                if spec.is_empty() {
                    out.push_str(&format!("{{{k}}}"));
                } else {
                    out.push_str(&format!("{{{k}:{spec}}}"));
                }
            }
        }
    }
    Ok((out, order, unused(&used)))
}

impl Lowerer {
    /// A macro of a body: a print, or the error that says what is supported.
    pub(super) fn macro_call(&mut self, mac: &syn::Macro) -> Option<Expr> {
        let last = mac.path.segments.last().map(|s| s.ident.to_string());
        let Some(&(_, to_stderr, newline)) = PRINTS
            .iter()
            .find(|(name, ..)| last.as_deref() == Some(*name))
        else {
            self.error(
                mac.span(),
                super::not_supported(
                    "this macro (bodies and kernels print with println!, print!, eprintln! and eprint!)",
                ),
            );
            return None;
        };
        let name = mac.path.segments.last().expect("named").ident.clone();
        if self.ctx == Context::Function {
            self.error(
                name.span(),
                format!(
                    "`{name}!` is not supported in an #[ongpu::device] function: print from the \
                     on_gpu! body or #[ongpu::kernel] that calls it (return the value to print)"
                ),
            );
            return None;
        }
        let parsed: PrintArgs = match mac.parse_body() {
            Ok(p) => p,
            Err(e) => {
                self.error(e.span(), e);
                return None;
            }
        };
        let span = parsed.format.as_ref().map_or(name.span(), |f| f.span());
        let source = parsed
            .format
            .as_ref()
            .map(LitStr::value)
            .unwrap_or_default();
        let (mut format, order) = match layout(&source, &parsed.args, span) {
            Ok((_, _, Some(k))) => {
                self.error(
                    parsed.args[k].value.span(),
                    "this argument is never used by the format",
                );
                return None;
            }
            Ok((format, order, None)) => (format, order),
            Err(msg) => {
                self.error(span, msg);
                return None;
            }
        };
        if newline {
            format.push('\n');
        }
        let args: Vec<Option<Expr>> = order
            .iter()
            .map(|o| match o {
                Ok(k) => self.expr(&parsed.args[*k].value),
                Err(name) => Some(Expr::Var(name.clone())),
            })
            .collect();
        let id = self.prints;
        self.prints += 1;
        Some(Expr::Print(Print {
            name,
            id,
            format: LitStr::new(&format, span),
            args: args.into_iter().collect::<Option<_>>()?,
            to_stderr,
        }))
    }
}
