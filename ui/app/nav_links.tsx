/**
 * A list of in-app links with the current one marked (aria-current="page"): the header's
 * sections and the file browser's views. A click opens the place without reloading.
 */
import { linkClick } from "./router.ts";

export interface NavLink {
  href: string;
  label: string;
  current: boolean;
}

export function NavLinks(props: { label: string; class?: string; links: NavLink[] }) {
  return (
    <nav class={props.class} aria-label={props.label}>
      <ul>
        {props.links.map((link) => (
          <li key={link.href}>
            <a
              href={link.href}
              aria-current={link.current ? "page" : undefined}
              onClick={(e) => linkClick(e, link.href)}
            >
              {link.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
