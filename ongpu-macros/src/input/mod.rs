//! Parsing of `on_gpu!`'s arguments: `(n, tpb, BODY)`, `(n, BODY)` or `(BODY)`, where
//! `BODY` is `{ statements }` or `|i| { statements }`, optionally after a reduction keyword
//! (`sum:`, `min:`, `max:`; see `reduce`).

pub mod kernel_signature;
pub mod kernel_syntax;
pub mod reduce;

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Block, Expr, Ident, Pat, Token};

const FORMS: &str = "on_gpu! takes (n, threads_per_block, BODY), (n, BODY) or (BODY), where BODY \
is `{ statements }` or `|i| { statements }` (`i` being the site index)";

/// The body of a call: its statements and the name of the site index, if any.
pub struct Body {
    /// `i` of `|i| { ... }`.
    pub site_index: Option<Ident>,
    /// The statements.
    pub block: Block,
}

/// A parsed `on_gpu!` call.
pub struct OnGpuInput {
    /// The reduction keyword of `on_gpu!(sum: ...)`, if any.
    pub reduction: Option<crate::input::reduce::Keyword>,
    /// The number of sites, if given.
    pub sites: Option<Expr>,
    /// Threads per block, if given.
    pub threads_per_block: Option<Expr>,
    /// The body.
    pub body: Body,
}

impl Parse for OnGpuInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let reduction = crate::input::reduce::parse_keyword(input)?;
        let forms = if reduction.is_some() {
            crate::input::reduce::FORMS
        } else {
            FORMS
        };
        if input.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                format!("on_gpu! needs a body: {forms}"),
            ));
        }
        let args: Punctuated<Expr, Token![,]> = Punctuated::parse_terminated(input)?;
        let mut args: Vec<Expr> = args.into_iter().collect();
        if args.len() > 3 {
            return Err(syn::Error::new(
                args[3].span(),
                format!("too many arguments: {forms}"),
            ));
        }
        let body = parse_body(args.pop().expect("not empty"), reduction.is_some())?;
        let mut args = args.into_iter();
        let sites = args.next();
        let threads_per_block = args.next();
        for e in sites.iter().chain(&threads_per_block) {
            if matches!(e, Expr::Block(_) | Expr::Closure(_)) {
                return Err(syn::Error::new(
                    e.span(),
                    format!("the body must be the last argument: {forms}"),
                ));
            }
        }
        Ok(OnGpuInput {
            reduction,
            sites,
            threads_per_block,
            body,
        })
    }
}

/// The last argument as a body (of a reduction if `reduction`).
pub fn parse_body(e: Expr, reduction: bool) -> syn::Result<Body> {
    match e {
        Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => Ok(Body {
            site_index: None,
            block: b.block,
        }),
        Expr::Closure(c) => {
            if let Some(m) = &c.movability {
                return Err(syn::Error::new(
                    m.span(),
                    "an on_gpu! body is `|i| { ... }`, not a `static` closure",
                ));
            }
            if let Some(a) = &c.asyncness {
                return Err(syn::Error::new(
                    a.span(),
                    "an on_gpu! body cannot be `async`",
                ));
            }
            if let Some(m) = &c.capture {
                return Err(syn::Error::new(
                    m.span(),
                    "drop `move`: an on_gpu! body captures fields by reference and values by copy",
                ));
            }
            if c.inputs.len() != 1 {
                return Err(syn::Error::new(
                    c.inputs.span(),
                    format!(
                        "an on_gpu! body takes one parameter, the site index: `|i| {{ ... }}` (found {})",
                        c.inputs.len()
                    ),
                ));
            }
            let site_index = match &c.inputs[0] {
                Pat::Ident(p)
                    if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
                {
                    p.ident.clone()
                }
                Pat::Type(t) => {
                    return Err(syn::Error::new(
                        t.ty.span(),
                        "the site index has type usize; write `|i| { ... }` without a type",
                    ))
                }
                p => {
                    return Err(syn::Error::new(
                        p.span(),
                        "the site index parameter must be a plain name: `|i| { ... }`",
                    ))
                }
            };
            if let syn::ReturnType::Type(_, ty) = &c.output {
                return Err(syn::Error::new(
                    ty.span(),
                    if reduction {
                        "drop `-> ...`: a reduction's per-site value has the type of the body's \
                         last expression"
                    } else {
                        "an element-wise on_gpu! body returns nothing; drop `-> ...`"
                    },
                ));
            }
            match *c.body {
                Expr::Block(b) if b.label.is_none() => Ok(Body {
                    site_index: Some(site_index),
                    block: b.block,
                }),
                other => Err(syn::Error::new(
                    other.span(),
                    "the body after `|i|` must be a block: `|i| { statements }`",
                )),
            }
        }
        other => Err(syn::Error::new(
            other.span(),
            format!(
                "the last argument must be the body: {}",
                if reduction {
                    crate::input::reduce::FORMS
                } else {
                    FORMS
                }
            ),
        )),
    }
}
