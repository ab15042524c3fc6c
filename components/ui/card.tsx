import type { HTMLAttributes } from "react";
import { cx } from "./cx";

/** A bordered surface that groups related content. Use `as="section"` with a heading for landmarks. */
export function Card({ as: Tag = "div", className, ...props }: HTMLAttributes<HTMLElement> & { as?: "div" | "section" | "article" | "li" }) {
  return <Tag className={cx("rounded-card border border-line bg-surface p-5 shadow-xs", className)} {...props} />;
}

export function CardTitle({ className, ...props }: HTMLAttributes<HTMLHeadingElement>) {
  return <h3 className={cx("text-base font-semibold text-ink", className)} {...props} />;
}

export function CardDescription({ className, ...props }: HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cx("mt-1 text-sm leading-6 text-muted", className)} {...props} />;
}
