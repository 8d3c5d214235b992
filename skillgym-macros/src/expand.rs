//! Code generation: the user's function, unchanged, plus a hidden registration block:
//!
//! ```text
//! fn case_fn(report: &SessionReport, ctx: &mut CaseContext) -> R { .. }   // as written
//! #[doc(hidden)]
//! const _: () = {
//!     // a sync case: called as it is
//!     fn __skillgym_run(report: &SessionReport, ctx: &mut CaseContext) -> skillgym::Result {
//!         /* call case_fn, convert with IntoCaseResult */
//!     }
//!     // an async case: boxed, polled on the harness's runtime
//!     fn __skillgym_run<'a>(report: &'a SessionReport, ctx: &'a mut CaseContext)
//!         -> __private::BoxFuture<'a>
//!     {
//!         Box::pin(async move { /* call case_fn(..).await, convert with IntoCaseResult */ })
//!     }
//!     fn __skillgym_classify(..) { .. }          // only with `classify_failure`
//!     __private::inventory::submit! {
//!         __private::CaseDef { .., run: __private::RunFn::Sync(__skillgym_run) }  // or Async
//!     }
//! };
//! ```
//!
//! A sync case gets no future: a hundred cases would otherwise compile a hundred state
//! machines, their drop glue and vtables, for nothing.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{ItemFn, LitStr};

use crate::args::{Args, Prompt};
use crate::signature::CaseFn;

/// Expands a valid case.
pub(crate) fn expand(item: &ItemFn, args: &Args, case: &CaseFn) -> TokenStream {
    let krate = krate_at(args, Span::call_site());
    let ident = &item.sig.ident;
    let ident_span = ident.span();

    let (run_item, run_field) = run_fn(ident, args, case, &krate);
    let (classify_item, classify_field) = classify_fn(args, &krate);

    let name = LitStr::new(&ident.unraw().to_string(), ident_span);
    // `line!()`/`column!()`/`file!()` spanned at the function's name report the name's
    // position rather than the attribute's.
    let line = quote_spanned!(ident_span=> ::core::line!());
    let column = quote_spanned!(ident_span=> ::core::column!());
    let file = quote_spanned!(ident_span=> ::core::file!());
    let module_path = quote_spanned!(ident_span=> ::core::module_path!());
    let id = option(args.id.as_ref().map(|id| quote!(#id)));
    let prompt = prompt_source(args, &krate);
    let tags = &args.tags;
    let runners = &args.runners;
    let repeat = option_int(args.repeat.map(u64::from));
    let repeat_failure = option_int(args.repeat_failure.map(u64::from));
    let samples = option_int(args.samples.map(u64::from));
    let min_pass_rate = option(args.min_pass_rate.map(|rate| quote!(#rate)));
    let min_lift = option(args.min_lift.map(|lift| quote!(#lift)));
    let timeout_ms = option_int(args.timeout_ms);
    let max_steps = option_int(args.max_steps.map(u64::from));
    let expected_fail = args.expected_fail;
    let stop_when_decided = args.stop_when_decided;
    let workspace = option(args.workspace.as_ref().map(|dir| quote!(#dir)));
    let mock = option(args.mock.as_ref().map(|script| quote!(#script)));
    let skills = &args.skills;
    let variants = &args.variants;

    quote! {
        // A tool attribute rustc ignores and rust-analyzer takes for a test: it shows Run and
        // Debug on the case, which run `--exact <module path>::<name>`, this case on every
        // runner.
        #[rust_analyzer::test]
        #item

        #[doc(hidden)]
        const _: () = {
            #run_item

            #classify_item

            #krate::__private::inventory::submit! {
                #krate::__private::CaseDef {
                    name: #name,
                    module_path: #module_path,
                    id: #id,
                    file: #file,
                    line: #line,
                    column: #column,
                    manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                    prompt: #prompt,
                    tags: &[#(#tags),*],
                    repeat: #repeat,
                    repeat_failure: #repeat_failure,
                    samples: #samples,
                    min_pass_rate: #min_pass_rate,
                    min_lift: #min_lift,
                    expected_fail: #expected_fail,
                    stop_when_decided: #stop_when_decided,
                    timeout_ms: #timeout_ms,
                    max_steps: #max_steps,
                    runners: &[#(#runners),*],
                    workspace: #workspace,
                    mock: #mock,
                    skills: &[#(#skills),*],
                    variants: &[#(#variants),*],
                    classify_failure: #classify_field,
                    run: #run_field,
                }
            }
        };
    }
}

/// The wrapper the harness calls, `__skillgym_run` (a plain function for a sync case, a boxed
/// future for an async one), and the `RunFn` naming it. Its call of the user function carries
/// the parameters' spans so a wrong referent type (`report: &u32`) is reported at the parameter.
fn run_fn(
    ident: &syn::Ident,
    args: &Args,
    case: &CaseFn,
    krate: &TokenStream,
) -> (TokenStream, TokenStream) {
    let report = quote_spanned!(case.report_span=> __skillgym_report);
    let (ctx_param, call) = match case.ctx_span {
        Some(span) => {
            let ctx = quote_spanned!(span=> __skillgym_ctx);
            (quote!(__skillgym_ctx), quote!(#ident(#report, #ctx)))
        }
        None => (quote!(_), quote!(#ident(#report))),
    };
    let call = if case.is_async {
        quote!(#call.await)
    } else {
        call
    };
    // A wrong return type is reported at the return type.
    let body = match case.output_span {
        None => quote! {
            #call;
            ::core::result::Result::Ok(())
        },
        Some(span) => {
            let krate = krate_at(args, span);
            quote_spanned! {span=>
                let __skillgym_output = #call;
                #krate::IntoCaseResult::into_case_result(__skillgym_output)
            }
        }
    };

    if case.is_async {
        (
            quote! {
                fn __skillgym_run<'a>(
                    __skillgym_report: &'a #krate::SessionReport,
                    #ctx_param: &'a mut #krate::CaseContext,
                ) -> #krate::__private::BoxFuture<'a> {
                    ::std::boxed::Box::pin(async move { #body })
                }
            },
            quote!(#krate::__private::RunFn::Async(__skillgym_run)),
        )
    } else {
        (
            quote! {
                fn __skillgym_run(
                    __skillgym_report: &#krate::SessionReport,
                    #ctx_param: &mut #krate::CaseContext,
                ) -> #krate::Result {
                    #body
                }
            },
            quote!(#krate::__private::RunFn::Sync(__skillgym_run)),
        )
    }
}

/// With `classify_failure = path`: the `__skillgym_classify` function calling it, and the
/// `Option` naming it.
fn classify_fn(args: &Args, krate: &TokenStream) -> (TokenStream, TokenStream) {
    match &args.classify_failure {
        Some(path) => {
            let span = syn::spanned::Spanned::span(path);
            let at_path = krate_at(args, span);
            let item = quote_spanned! {span=>
                fn __skillgym_classify(
                    __skillgym_failure: &#krate::Failure,
                ) -> ::core::option::Option<#krate::FailureClass> {
                    let __skillgym_class = #path(__skillgym_failure);
                    #at_path::__private::IntoFailureClass::into_failure_class(__skillgym_class)
                }
            };
            (
                item,
                quote!(::core::option::Option::Some(__skillgym_classify)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    }
}

/// The case's `PromptSource`: its inline text or its file.
fn prompt_source(args: &Args, krate: &TokenStream) -> TokenStream {
    match &args.prompt {
        Some(Prompt::Inline(text)) => quote!(#krate::__private::PromptSource::Inline(#text)),
        Some(Prompt::File(path)) => quote!(#krate::__private::PromptSource::File(#path)),
        None => unreachable!("a missing prompt is reported before expansion"),
    }
}

/// The path of the skillgym crate (`crate = "..."` or `::skillgym`), with every token at `span`
/// so that errors involving it point where the caller wants.
fn krate_at(args: &Args, span: Span) -> TokenStream {
    let path = match &args.krate {
        Some(path) => quote!(#path),
        None => quote!(::skillgym),
    };
    path.into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

fn option_int(value: Option<u64>) -> TokenStream {
    option(value.map(|n| {
        let n = Literal::u64_unsuffixed(n);
        quote!(#n)
    }))
}
