//! What an expansion adds for a body that prints: the call's `Printer` (where the CPU
//! backend's lines go), the function that formats the GPU's decoded records with each
//! print's format, and the flush of the CPU lines when the call returns.

use crate::ir::Body;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The name under which an expansion binds the call's `Printer` (a reference to it).
pub fn printer_ident() -> syn::Ident {
    syn::Ident::new("__ongpu_printer", Span::mixed_site())
}

/// The pieces of a printing call's expansion.
pub struct PrintParts {
    /// Before the call: the printer and the format function.
    pub setup: TokenStream,
    /// The value of the call-site facts' `prints` field.
    pub format_fn: TokenStream,
}

impl PrintParts {
    /// The pieces for `body` (a call that does not print has none: `prints: None`).
    pub fn of(body: &Body) -> Self {
        let prints = body.prints();
        if prints.is_empty() {
            return PrintParts {
                setup: quote!(),
                format_fn: quote!(::core::option::Option::None),
            };
        }
        let name = syn::Ident::new("__ongpu_print_format", Span::mixed_site());
        let printer = printer_ident();
        let arms = prints.iter().map(|p| {
            let id = p.id;
            let vars: Vec<_> = (0..p.args.len())
                .map(|k| format_ident!("__ongpu_a{}", k))
                .collect();
            let (format, to_stderr) = (&p.format, p.to_stderr);
            quote_spanned!(p.name.span()=>
                (#id, [#(#vars),*]) => ::ongpu::__private::Printed {
                    to_stderr: #to_stderr,
                    text: ::std::format!(#format #(, #vars)*),
                },
            )
        });
        PrintParts {
            setup: quote! {
                #[allow(clippy::match_single_binding)]
                fn #name(
                    id: u32,
                    args: &[::ongpu::__private::PrintValue],
                ) -> ::ongpu::__private::Printed {
                    match (id, args) {
                        #(#arms)*
                        _ => ::ongpu::__private::Printed::malformed(id, args.len()),
                    }
                }
                let #printer = &::ongpu::__private::Printer::new();
            },
            format_fn: quote!(::core::option::Option::Some(#name)),
        }
    }

    /// `call`, followed by the flush of the lines the CPU backend collected (none for a call
    /// that does not print).
    pub fn around(&self, call: TokenStream) -> TokenStream {
        if self.setup.is_empty() {
            return call;
        }
        let printer = printer_ident();
        quote! {{
            let __ongpu_result = #call;
            #printer.flush();
            __ongpu_result
        }}
    }
}
