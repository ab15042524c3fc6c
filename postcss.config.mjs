// Tailwind CSS 4 runs as a single PostCSS plugin; its configuration lives in app/globals.css (@theme).
const config = {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
export default config;
