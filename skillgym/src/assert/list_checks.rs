//! The eleven checks [`Commands`](super::Commands) and [`FileReads`](super::FileReads) share,
//! written once and generated for each group.
//!
//! | group | pattern | items |
//! |---|---|---|
//! | `Commands` | [`CommandPattern`](super::CommandPattern) | raw command lines |
//! | `FileReads` | [`TextMatcher`](super::TextMatcher) | read paths |
//!
//! The checks themselves (matching, messages, explain questions) live in
//! [`ItemList`](super::list::ItemList); a group gives only its pattern type, the words of its
//! docs and one example per check.

/// Generates `includes`, `not_includes`, `count`, `at_least`, `at_most`, `before`, `only`,
/// `size`, `exactly_one`, `first` and `last` on a group type with the fields
/// `check: Check<'a>` and `list: ItemList<_>`.
///
/// The header names the group type, the `Expect` method that opens it, the pattern type and
/// the `SessionEvent` constructor of its examples; `docs` gives the words for one item, many
/// items, all of them having happened and none having happened (`"command"`, `"commands"`,
/// `"commands ran"`, `"no command ran"`). Each example reads `check([events], arguments)`:
/// the report holds one event per string, and the check is called with the arguments.
macro_rules! list_checks {
    (
        $group:ident($method:literal, $pattern:ty, SessionEvent::$event:ident),
        docs($one:literal, $many:literal, $done:literal, $none:literal),
        examples {
            includes$includes:tt,
            not_includes$not_includes:tt,
            count$count:tt,
            at_least$at_least:tt,
            at_most$at_most:tt,
            before$before:tt,
            only$only:tt,
            size$size:tt,
            exactly_one$exactly_one:tt,
            first$first:tt,
            last$last:tt $(,)?
        } $(,)?
    ) => {
        impl<'a> $group<'a> {
            $crate::assert::list_checks::list_check! {
                #[doc(alias = "contains")]
                doc(concat!("Some ", $one, " matches."))
                fn includes(pattern: impl Into<$pattern>)
                example($method, $event, $includes)
                |list| list.includes(&pattern.into())
            }

            $crate::assert::list_checks::list_check! {
                #[doc(alias("not_contains", "excludes"))]
                doc(concat!("No ", $one, " matches."))
                fn not_includes(pattern: impl Into<$pattern>)
                example($method, $event, $not_includes)
                |list| list.not_includes(&pattern.into())
            }

            $crate::assert::list_checks::list_check! {
                #[doc(alias("times", "exactly"))]
                doc(concat!("Exactly `expected` ", $many, " match."))
                fn count(pattern: impl Into<$pattern>, expected: usize)
                example($method, $event, $count)
                |list| list.count(&pattern.into(), $crate::assert::list::Bound::Exactly, expected)
            }

            $crate::assert::list_checks::list_check! {
                #[doc(alias("min", "at_least_times"))]
                doc(concat!("At least `min` ", $many, " match."))
                fn at_least(pattern: impl Into<$pattern>, min: usize)
                example($method, $event, $at_least)
                |list| list.count(&pattern.into(), $crate::assert::list::Bound::AtLeast, min)
            }

            $crate::assert::list_checks::list_check! {
                #[doc(alias("max", "at_most_times"))]
                doc(concat!("At most `max` ", $many, " match."))
                fn at_most(pattern: impl Into<$pattern>, max: usize)
                example($method, $event, $at_most)
                |list| list.count(&pattern.into(), $crate::assert::list::Bound::AtMost, max)
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!(
                    "The first ", $one, " matching `earlier` comes before the first matching ",
                    "`later`; both must exist."
                ))
                fn before(earlier: impl Into<$pattern>, later: impl Into<$pattern>)
                example($method, $event, $before)
                |list| list.before(&earlier.into(), &later.into())
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!(
                    "Every ", $one, " matches at least one of `patterns` (vacuously true with no ",
                    $many, ")."
                ))
                fn only<P: Into<$pattern>>(patterns: impl IntoIterator<Item = P>)
                example($method, $event, $only)
                |list| list.only(&patterns.into_iter().map(Into::into).collect::<Vec<$pattern>>())
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!("Exactly `expected` ", $done, "."))
                fn size(expected: usize)
                example($method, $event, $size)
                |list| list.size(expected)
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!("Exactly one ", $one, " matches."))
                fn exactly_one(pattern: impl Into<$pattern>)
                example($method, $event, $exactly_one)
                |list| list.count(&pattern.into(), $crate::assert::list::Bound::Exactly, 1)
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!("The first ", $one, " matches (fails when ", $none, ")."))
                fn first(pattern: impl Into<$pattern>)
                example($method, $event, $first)
                |list| list.edge(&pattern.into(), false)
            }

            $crate::assert::list_checks::list_check! {
                doc(concat!("The last ", $one, " matches (fails when ", $none, ")."))
                fn last(pattern: impl Into<$pattern>)
                example($method, $event, $last)
                |list| list.edge(&pattern.into(), true)
            }
        }
    };
}

/// One generated check: its attributes (a doc alias), doc line and example, then `$check` run on the group's list
/// (bound to `$list`) and its outcome delivered at the caller's line.
macro_rules! list_check {
    (
        $(#[$attr:meta])*
        doc($doc:expr)
        fn $name:ident $(<$generic:ident: $bound:path>)? ($($arg:ident: $ty:ty),*)
        example($method:literal, $event:ident, ([$($item:literal),*], $($args:tt)*))
        |$list:ident| $check:expr
    ) => {
        $(#[$attr])*
        #[doc = $doc]
        ///
        #[doc = $crate::assert::list_checks::list_example!(
            $method, $event, [$($item),*], $name($($args)*)
        )]
        #[track_caller]
        pub fn $name $(<$generic: $bound>)? (mut self, $($arg: $ty),*) -> Self {
            let $list = &self.list;
            let outcome = $check;
            self.check.settle(::std::panic::Location::caller(), outcome);
            self
        }
    };
}

/// The doc example of one generated check: a report with one `SessionEvent::$event` per
/// argument, then the check called on it.
macro_rules! list_example {
    ($method:literal, $event:ident, [$($item:literal),*], $check:ident($($args:tt)*)) => {
        concat!(
            "```\n",
            "# use skillgym::prelude::*;\n",
            "# let report = SessionReport::from_events([",
            $("SessionEvent::", stringify!($event), "(", stringify!($item), "), ",)*
            "]);\n",
            "report.expect().", $method, "().", stringify!($check), "(", stringify!($($args)*), ");\n",
            "```"
        )
    };
}

pub(crate) use {list_check, list_checks, list_example};
