"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { isUnauthorized } from "./api";

/** One QueryClient per browser tab (created once, not per render). */
export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // Live updates arrive over SSE; refetching on focus covers a laptop that slept.
            staleTime: 30_000,
            refetchOnWindowFocus: true,
            // A 401 will not fix itself by retrying: show "sign in again" at once.
            retry: (failures, error) => !isUnauthorized(error) && failures < 2,
          },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
