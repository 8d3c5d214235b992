//! The `#[skillgym::case]` attribute. Use it through the `skillgym` crate, which re-exports it
//! as `skillgym::case` and documents every argument there; generated code refers to
//! `::skillgym` (see its `crate` argument).

use proc_macro::TokenStream;
use quote::ToTokens;

mod args;
mod duration;
mod expand;
mod signature;
mod suggest;

/// Declares a skillgym benchmark case. Documented at `skillgym::case`.
#[proc_macro_attribute]
pub fn case(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    let args = args::parse(args.into(), &mut errors);
    let function: syn::ItemFn = match syn::parse(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            errors.push(syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[skillgym::case] goes on a function: \
                 `fn name(report: &SessionReport) { .. }`",
            ));
            return with_errors(item.into(), errors);
        }
    };
    let case = signature::check(&function.sig, &mut errors);
    if errors.is_empty() {
        expand::expand(&function, &args, &case).into()
    } else {
        // Keep the function so the rest of the crate (and rust-analyzer) still sees it.
        with_errors(function.into_token_stream(), errors)
    }
}

fn with_errors(item: proc_macro2::TokenStream, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.into_iter().map(|error| error.to_compile_error());
    quote::quote!(#item #(#errors)*).into()
}
