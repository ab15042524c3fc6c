export { Badge, type BadgeTone } from "./badge";
export { Button, buttonStyles, type ButtonProps, type ButtonSize, type ButtonVariant } from "./button";
export { Card, CardDescription, CardTitle } from "./card";
export { cx } from "./cx";
export { Detail, Details } from "./details";
