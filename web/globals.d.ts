/** The widget's stylesheet, minified and inlined by scripts/build-web.ts. */
declare const WIDGET_CSS: string;
