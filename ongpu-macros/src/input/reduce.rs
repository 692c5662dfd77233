//! The syntax of reductions: `on_gpu!(sum: n, tpb, BODY)` (and `min:`, `max:`, with `n` and
//! `tpb` optional as in element-wise calls). A leading keyword and a single colon cannot
//! start an expression, so the two forms never overlap. The body's last expression, without
//! `;`, is each site's value.

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::parse::ParseStream;
use syn::{Ident, Token};

/// The forms of a reduction call, for messages.
pub const FORMS: &str = "a reduction is on_gpu!(sum: n, threads_per_block, BODY), \
on_gpu!(sum: n, BODY) or on_gpu!(sum: BODY) (or min: / max: instead of sum:), where BODY is \
`{ statements; value }` or `|i| { statements; value }` and `value`, the last expression \
without `;`, is each site's value; `sum -> s:` writes the result into the DeviceScalar `s` \
instead of returning it";

/// The reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `sum:`
    Sum,
    /// `min:`
    Min,
    /// `max:`
    Max,
}

/// The keyword of a reduction call, with its span.
#[derive(Debug, Clone)]
pub struct Keyword {
    /// Which reduction.
    pub op: Op,
    /// The keyword as written.
    pub ident: Ident,
    /// The `DeviceScalar` of `sum -> s:`, which receives the result on the device.
    pub into: Option<Ident>,
}

impl Keyword {
    /// The runtime's marker type of the reduction (`Sum`), named at the keyword's span.
    pub fn marker(&self) -> Ident {
        let name = match self.op {
            Op::Sum => "Sum",
            Op::Min => "Min",
            Op::Max => "Max",
        };
        Ident::new(name, self.ident.span())
    }

    /// The runtime's function that checks the type of the per-site value.
    pub fn value_check(&self) -> Ident {
        let name = match self.op {
            Op::Sum => "summand",
            Op::Min | Op::Max => "compared",
        };
        Ident::new(name, self.ident.span())
    }
}

/// True if `tokens` start like a reduction call: a name and a lone `:`, or a name and `->`
/// (`sum -> s:`; no expression starts with either).
pub fn starts_with_keyword(tokens: &TokenStream) -> bool {
    let mut it = tokens.clone().into_iter();
    match (it.next(), it.next(), it.next()) {
        (Some(TokenTree::Ident(_)), Some(TokenTree::Punct(p)), _)
            if p.as_char() == ':' && p.spacing() == Spacing::Alone =>
        {
            true
        }
        (Some(TokenTree::Ident(_)), Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) => {
            a.as_char() == '-' && a.spacing() == Spacing::Joint && b.as_char() == '>'
        }
        _ => false,
    }
}

/// Parses `keyword:` at the start of a call, if there.
pub fn parse_keyword(input: ParseStream) -> syn::Result<Option<Keyword>> {
    let colon = input.peek2(Token![:]) && !input.peek2(Token![::]);
    if !(input.peek(Ident) && (colon || input.peek2(Token![->]))) {
        return Ok(None);
    }
    let ident: Ident = input.parse()?;
    let into = if input.peek(Token![->]) {
        let arrow: Token![->] = input.parse()?;
        let dest: Ident = input.parse().map_err(|_| {
            syn::Error::new(
                arrow.spans[1],
                format!(
                    "after `{ident} ->` name the DeviceScalar that receives the result, as in \
                     on_gpu!({ident} -> rr: lat.even(), |i| {{ r.norm2() }})"
                ),
            )
        })?;
        Some(dest)
    } else {
        None
    };
    if !input.peek(Token![:]) || input.peek(Token![::]) {
        return Err(syn::Error::new(
            input.span(),
            format!("expected `:` after the reduction's keyword; {FORMS}"),
        ));
    }
    let _: Token![:] = input.parse()?;
    let op = match ident.to_string().as_str() {
        "sum" => Op::Sum,
        "min" => Op::Min,
        "max" => Op::Max,
        other => {
            return Err(syn::Error::new(
                ident.span(),
                format!(
                "`{other}:` is not a reduction: on_gpu! reduces with sum:, min: or max:; {FORMS}"
            ),
            ))
        }
    };
    Ok(Some(Keyword { op, ident, into }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_a_name_and_a_lone_colon() {
        assert!(starts_with_keyword(&quote::quote!(sum: n, { x })));
        assert!(starts_with_keyword(&quote::quote!(sum -> s: n, { x })));
        assert!(!starts_with_keyword(&quote::quote!(n - s, { x })));
        assert!(!starts_with_keyword(&quote::quote!(n, { x })));
        assert!(!starts_with_keyword(&quote::quote!(lattice::N, { x })));
        assert!(!starts_with_keyword(&quote::quote!({ x })));
    }
}
