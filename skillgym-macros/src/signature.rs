//! Structural checks of the annotated function's signature.
//!
//! Only the shape is checked here (free fn, one `&` parameter and an optional `&mut` one);
//! the referent types and the return type are left to rustc, with the generated call spanned
//! so that its errors point at the user's parameter or return type.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, FnArg, ReturnType, Signature, Type};

/// What the expansion needs to know about the function.
pub(crate) struct CaseFn {
    pub is_async: bool,
    /// Span of the report parameter (the generated call's first argument gets it).
    pub report_span: Span,
    /// Span of the context parameter, if the function takes one.
    pub ctx_span: Option<Span>,
    /// Span of the return type, or `None` when the function returns `()`.
    pub output_span: Option<Span>,
}

/// Checks `sig`, pushing every problem onto `errors`.
pub(crate) fn check(sig: &Signature, errors: &mut Vec<Error>) -> CaseFn {
    check_qualifiers(sig, errors);
    let mut case = CaseFn {
        is_async: sig.asyncness.is_some(),
        report_span: sig.ident.span(),
        ctx_span: None,
        output_span: match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) if is_unit(ty) => None,
            ReturnType::Type(_, ty) => Some(ty.span()),
        },
    };
    check_params(sig, &mut case, errors);
    case
}

/// Refuses what a case cannot be: `const`, `unsafe`, `extern`, generic, with a `where` clause,
/// variadic.
fn check_qualifiers(sig: &Signature, errors: &mut Vec<Error>) {
    if let Some(token) = &sig.constness {
        errors.push(Error::new(
            token.span,
            "a skillgym case cannot be a `const fn`",
        ));
    }
    if let Some(token) = &sig.unsafety {
        errors.push(Error::new(token.span, "a skillgym case cannot be `unsafe`"));
    }
    if let Some(abi) = &sig.abi {
        errors.push(Error::new_spanned(
            abi,
            "a skillgym case cannot have an `extern` ABI",
        ));
    }
    if !sig.generics.params.is_empty() {
        errors.push(Error::new_spanned(
            &sig.generics,
            "a skillgym case cannot be generic: remove the generic parameters",
        ));
    }
    if let Some(clause) = &sig.generics.where_clause {
        errors.push(Error::new_spanned(
            clause,
            "a skillgym case cannot have a `where` clause",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(Error::new_spanned(
            variadic,
            "a skillgym case cannot be variadic",
        ));
    }
}

/// Checks the parameters (`&` report, optional `&mut` context, no receiver, no third) and
/// records their spans in `case`.
fn check_params(sig: &Signature, case: &mut CaseFn, errors: &mut Vec<Error>) {
    let name = &sig.ident;
    let expected = format!(
        "expected `fn {name}(report: &SessionReport)` or \
         `fn {name}(report: &SessionReport, ctx: &mut CaseContext)`"
    );
    let inputs: Vec<&FnArg> = sig.inputs.iter().collect();
    if inputs.is_empty() {
        errors.push(Error::new(
            sig.paren_token.span.join(),
            format!("a skillgym case takes the session report: {expected}"),
        ));
    }
    if let Some(FnArg::Receiver(receiver)) =
        inputs.iter().find(|arg| matches!(arg, FnArg::Receiver(_)))
    {
        errors.push(Error::new_spanned(
            receiver,
            "a skillgym case must be a free function, not a method: \
             move it out of the `impl` block",
        ));
        return;
    }
    if inputs.len() > 2 {
        let extra = &inputs[2..];
        errors.push(Error::new_spanned(
            quote::quote!(#(#extra),*),
            "too many parameters: a skillgym case takes `report: &SessionReport` and \
             optionally `ctx: &mut CaseContext`",
        ));
    }
    if let Some(FnArg::Typed(report)) = inputs.first() {
        if !is_reference(&report.ty, false) {
            errors.push(Error::new_spanned(
                report,
                format!(
                    "the first parameter must be the report, taken by shared reference \
                     (`report: &SessionReport`): {expected}"
                ),
            ));
        }
        case.report_span = report.pat.span();
    }
    if let Some(FnArg::Typed(ctx)) = inputs.get(1) {
        if !is_reference(&ctx.ty, true) {
            errors.push(Error::new_spanned(
                ctx,
                "the second parameter must be the case context, taken by mutable reference: \
                 `ctx: &mut CaseContext`",
            ));
        }
        case.ctx_span = Some(ctx.pat.span());
    }
}

fn is_unit(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Paren(paren) => is_unit(&paren.elem),
        Type::Group(group) => is_unit(&group.elem),
        _ => false,
    }
}

fn is_reference(ty: &Type, mutable: bool) -> bool {
    match ty {
        Type::Reference(reference) => reference.mutability.is_some() == mutable,
        Type::Paren(paren) => is_reference(&paren.elem, mutable),
        Type::Group(group) => is_reference(&group.elem, mutable),
        _ => false,
    }
}
