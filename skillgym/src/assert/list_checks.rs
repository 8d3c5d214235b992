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
/// `"commands ran"`, `"no command ran"`). Each example is the events of the report and the
/// arguments of the check.
macro_rules! list_checks {
    (
        $group:ident($method:literal, $pattern:ty, SessionEvent::$event:ident),
        docs($one:literal, $many:literal, $done:literal, $none:literal),
        examples {
            includes[$($includes:literal),*]$includes_args:tt,
            not_includes[$($not_includes:literal),*]$not_includes_args:tt,
            count[$($count:literal),*]$count_args:tt,
            at_least[$($at_least:literal),*]$at_least_args:tt,
            at_most[$($at_most:literal),*]$at_most_args:tt,
            before[$($before:literal),*]$before_args:tt,
            only[$($only:literal),*]$only_args:tt,
            size[$($size:literal),*]$size_args:tt,
            exactly_one[$($exactly_one:literal),*]$exactly_one_args:tt,
            first[$($first:literal),*]$first_args:tt,
            last[$($last:literal),*]$last_args:tt $(,)?
        } $(,)?
    ) => {
        impl<'a> $group<'a> {
            #[doc = concat!("Some ", $one, " matches.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($includes),*], includes $includes_args
            )]
            #[track_caller]
            pub fn includes(mut self, pattern: impl Into<$pattern>) -> Self {
                let outcome = self.list.includes(&pattern.into());
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("No ", $one, " matches.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($not_includes),*], not_includes $not_includes_args
            )]
            #[track_caller]
            pub fn not_includes(mut self, pattern: impl Into<$pattern>) -> Self {
                let outcome = self.list.not_includes(&pattern.into());
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("Exactly `expected` ", $many, " match.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($count),*], count $count_args
            )]
            #[track_caller]
            pub fn count(mut self, pattern: impl Into<$pattern>, expected: usize) -> Self {
                let bound = $crate::assert::list::Bound::Exactly;
                let outcome = self.list.count(&pattern.into(), bound, expected);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("At least `min` ", $many, " match.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($at_least),*], at_least $at_least_args
            )]
            #[track_caller]
            pub fn at_least(mut self, pattern: impl Into<$pattern>, min: usize) -> Self {
                let bound = $crate::assert::list::Bound::AtLeast;
                let outcome = self.list.count(&pattern.into(), bound, min);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("At most `max` ", $many, " match.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($at_most),*], at_most $at_most_args
            )]
            #[track_caller]
            pub fn at_most(mut self, pattern: impl Into<$pattern>, max: usize) -> Self {
                let bound = $crate::assert::list::Bound::AtMost;
                let outcome = self.list.count(&pattern.into(), bound, max);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!(
                "The first ", $one, " matching `earlier` comes before the first matching ",
                "`later`; both must exist."
            )]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($before),*], before $before_args
            )]
            #[track_caller]
            pub fn before(
                mut self,
                earlier: impl Into<$pattern>,
                later: impl Into<$pattern>,
            ) -> Self {
                let outcome = self.list.before(&earlier.into(), &later.into());
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!(
                "Every ", $one, " matches at least one of `patterns` (vacuously true with no ",
                $many, ")."
            )]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($only),*], only $only_args
            )]
            #[track_caller]
            pub fn only<P: Into<$pattern>>(
                mut self,
                patterns: impl IntoIterator<Item = P>,
            ) -> Self {
                let patterns: Vec<$pattern> = patterns.into_iter().map(Into::into).collect();
                let outcome = self.list.only(&patterns);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("Exactly `expected` ", $done, ".")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($size),*], size $size_args
            )]
            #[track_caller]
            pub fn size(mut self, expected: usize) -> Self {
                let outcome = self.list.size(expected);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("Exactly one ", $one, " matches.")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($exactly_one),*], exactly_one $exactly_one_args
            )]
            #[track_caller]
            pub fn exactly_one(mut self, pattern: impl Into<$pattern>) -> Self {
                let bound = $crate::assert::list::Bound::Exactly;
                let outcome = self.list.count(&pattern.into(), bound, 1);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("The first ", $one, " matches (fails when ", $none, ").")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($first),*], first $first_args
            )]
            #[track_caller]
            pub fn first(mut self, pattern: impl Into<$pattern>) -> Self {
                let outcome = self.list.edge(&pattern.into(), false);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }

            #[doc = concat!("The last ", $one, " matches (fails when ", $none, ").")]
            ///
            #[doc = $crate::assert::list_checks::list_example!(
                $method, $event, [$($last),*], last $last_args
            )]
            #[track_caller]
            pub fn last(mut self, pattern: impl Into<$pattern>) -> Self {
                let outcome = self.list.edge(&pattern.into(), true);
                self.check.settle(::std::panic::Location::caller(), outcome);
                self
            }
        }
    };
}

/// The doc example of one generated check: a report with one `SessionEvent::$event` per
/// argument, then the check called on it.
macro_rules! list_example {
    ($method:literal, $event:ident, [$($item:literal),*], $check:ident $args:tt) => {
        concat!(
            "```\n",
            "# use skillgym::prelude::*;\n",
            "# let report = SessionReport::from_events([",
            $("SessionEvent::", stringify!($event), "(", stringify!($item), "), ",)*
            "]);\n",
            "report.expect().", $method, "().", stringify!($check), stringify!($args), ";\n",
            "```"
        )
    };
}

pub(crate) use {list_checks, list_example};
