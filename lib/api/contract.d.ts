import type { z } from "zod";
import { type Role } from "../auth/permissions";
/**
 * The HTTP API, declared once: route handlers are built from these entries (lib/api/route.ts), the OpenAPI
 * document is generated from them (lib/api/openapi.ts), and the SDK calls through them.
 */
export interface RouteContract {
    method: "GET" | "POST" | "PATCH" | "DELETE";
    path: string;
    summary: string;
    /** Roles allowed (token and person roles; groups from lib/auth/permissions.ts); "public" needs no credentials. */
    auth: readonly Role[] | "public";
    params?: z.ZodObject;
    query?: z.ZodType;
    body?: z.ZodType;
    response?: z.ZodType;
    /** Success status (200 unless said). */
    status?: number;
    /** A server-sent event stream instead of JSON. */
    stream?: true;
    /** Starts work (a task, a child, a claim): refused (409 quarantined) for a token an incident's kill switch quarantines. */
    startsWork?: true;
}
export declare const contract: {
    readonly createTask: {
        readonly startsWork: true;
        readonly method: "POST";
        readonly path: "/api/tasks";
        readonly summary: "Create a task (one user request handled by an agent)";
        readonly auth: readonly ["admin", "agent"];
        readonly body: z.ZodObject<{
            title: z.ZodString;
            conversationId: z.ZodOptional<z.ZodString>;
            riskLevel: z.ZodOptional<z.ZodEnum<{
                high: "high";
                low: "low";
            }>>;
            ownerId: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            ownerId: z.ZodString;
            conversationId: z.ZodNullable<z.ZodString>;
            title: z.ZodString;
            riskLevel: z.ZodEnum<{
                high: "high";
                low: "low";
            }>;
            stage: z.ZodEnum<{
                active: "active";
                cancel_requested: "cancel_requested";
                cancelled: "cancelled";
                completed: "completed";
                failed: "failed";
            }>;
            intentVersion: z.ZodNumber;
            proposalVersion: z.ZodNumber;
            proposal: z.ZodNullable<z.ZodUnknown>;
            cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelReason: z.ZodNullable<z.ZodString>;
            cancelRequestedBy: z.ZodNullable<z.ZodString>;
            cancelIntentVersion: z.ZodNullable<z.ZodNumber>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
            settledAt: z.ZodNullable<z.ZodISODateTime>;
            turnId: z.ZodNullable<z.ZodString>;
            endedAt: z.ZodNullable<z.ZodISODateTime>;
            endReason: z.ZodNullable<z.ZodString>;
        }, z.core.$strip>;
        readonly status: 201;
    };
    readonly listTasks: {
        readonly method: "GET";
        readonly path: "/api/tasks";
        readonly summary: "List tasks, newest first; filter by status (comma-separated) and conversation";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly query: z.ZodObject<{
            status: z.ZodPipe<z.ZodOptional<z.ZodString>, z.ZodTransform<string[] | undefined, string | undefined>>;
            conversationId: z.ZodOptional<z.ZodString>;
            limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
            before: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            tasks: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                ownerId: z.ZodString;
                conversationId: z.ZodNullable<z.ZodString>;
                title: z.ZodString;
                riskLevel: z.ZodEnum<{
                    high: "high";
                    low: "low";
                }>;
                stage: z.ZodEnum<{
                    active: "active";
                    cancel_requested: "cancel_requested";
                    cancelled: "cancelled";
                    completed: "completed";
                    failed: "failed";
                }>;
                intentVersion: z.ZodNumber;
                proposalVersion: z.ZodNumber;
                proposal: z.ZodNullable<z.ZodUnknown>;
                cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelReason: z.ZodNullable<z.ZodString>;
                cancelRequestedBy: z.ZodNullable<z.ZodString>;
                cancelIntentVersion: z.ZodNullable<z.ZodNumber>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                settledAt: z.ZodNullable<z.ZodISODateTime>;
                turnId: z.ZodNullable<z.ZodString>;
                endedAt: z.ZodNullable<z.ZodISODateTime>;
                endReason: z.ZodNullable<z.ZodString>;
                workItemCount: z.ZodNumber;
                outcomes: z.ZodArray<z.ZodObject<{
                    kind: z.ZodEnum<{
                        abandoned: "abandoned";
                        awaiting_service: "awaiting_service";
                        completed: "completed";
                        completed_before_stop: "completed_before_stop";
                        could_not_stop_finished: "could_not_stop_finished";
                        could_not_stop_running: "could_not_stop_running";
                        discarded: "discarded";
                        failed: "failed";
                        finished_after_stop: "finished_after_stop";
                        never_started: "never_started";
                        outcome_unknown: "outcome_unknown";
                        reversed: "reversed";
                        running: "running";
                        stopped: "stopped";
                        stopped_partial_kept: "stopped_partial_kept";
                        stopping: "stopping";
                        took_effect: "took_effect";
                        waiting: "waiting";
                    }>;
                    count: z.ZodNumber;
                }, z.core.$strip>>;
                stopStatus: z.ZodNullable<z.ZodEnum<{
                    CANCELLATION_FAILED: "CANCELLATION_FAILED";
                    CANCELLED: "CANCELLED";
                    IN_PROGRESS: "IN_PROGRESS";
                    PARTIALLY_CANCELLED: "PARTIALLY_CANCELLED";
                }>>;
                standing: z.ZodEnum<{
                    completed: "completed";
                    failed: "failed";
                    running: "running";
                    stop_failed: "stop_failed";
                    stopped: "stopped";
                    stopped_with_effects: "stopped_with_effects";
                    stopping: "stopping";
                }>;
                ownerEmail: z.ZodNullable<z.ZodString>;
                tools: z.ZodArray<z.ZodString>;
                effects: z.ZodObject<{
                    committed: z.ZodNumber;
                    unknown: z.ZodNumber;
                }, z.core.$strip>;
                awaitingDecision: z.ZodNumber;
                nextDeadline: z.ZodNullable<z.ZodISODateTime>;
                uncertainSteps: z.ZodNumber;
            }, z.core.$strip>>;
            nextCursor: z.ZodNullable<z.ZodString>;
        }, z.core.$strip>;
    };
    readonly getTask: {
        readonly method: "GET";
        readonly path: "/api/tasks/{taskId}";
        readonly summary: "A task with its work items, resources, side effects and review items";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            ownerId: z.ZodString;
            conversationId: z.ZodNullable<z.ZodString>;
            title: z.ZodString;
            riskLevel: z.ZodEnum<{
                high: "high";
                low: "low";
            }>;
            stage: z.ZodEnum<{
                active: "active";
                cancel_requested: "cancel_requested";
                cancelled: "cancelled";
                completed: "completed";
                failed: "failed";
            }>;
            intentVersion: z.ZodNumber;
            proposalVersion: z.ZodNumber;
            proposal: z.ZodNullable<z.ZodUnknown>;
            cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelReason: z.ZodNullable<z.ZodString>;
            cancelRequestedBy: z.ZodNullable<z.ZodString>;
            cancelIntentVersion: z.ZodNullable<z.ZodNumber>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
            settledAt: z.ZodNullable<z.ZodISODateTime>;
            turnId: z.ZodNullable<z.ZodString>;
            endedAt: z.ZodNullable<z.ZodISODateTime>;
            endReason: z.ZodNullable<z.ZodString>;
            workItems: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                parentWorkItemId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    external_action: "external_action";
                    local_worker: "local_worker";
                    model_request: "model_request";
                    remote_tool: "remote_tool";
                }>;
                toolName: z.ZodString;
                correlationId: z.ZodString;
                input: z.ZodNullable<z.ZodUnknown>;
                status: z.ZodEnum<{
                    cancelled: "cancelled";
                    cancelled_incomplete: "cancelled_incomplete";
                    cancelling: "cancelling";
                    completed: "completed";
                    failed: "failed";
                    partial: "partial";
                    queued: "queued";
                    running: "running";
                    submitted: "submitted";
                    uncertain: "uncertain";
                    unrecoverable: "unrecoverable";
                }>;
                preparedIntentVersion: z.ZodNumber;
                proposalVersion: z.ZodNullable<z.ZodNumber>;
                mechanism: z.ZodEnum<{
                    abort_signal: "abort_signal";
                    none: "none";
                    provider_cancel: "provider_cancel";
                    rollback: "rollback";
                }>;
                commitsEffect: z.ZodBoolean;
                operationId: z.ZodNullable<z.ZodString>;
                providerRef: z.ZodNullable<z.ZodString>;
                idempotencyKey: z.ZodString;
                leaseOwner: z.ZodNullable<z.ZodString>;
                leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
                heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
                attempt: z.ZodNumber;
                partialResult: z.ZodNullable<z.ZodUnknown>;
                partialComplete: z.ZodNullable<z.ZodBoolean>;
                result: z.ZodNullable<z.ZodUnknown>;
                progress: z.ZodNullable<z.ZodObject<{
                    done: z.ZodNumber;
                    total: z.ZodOptional<z.ZodNumber>;
                    unit: z.ZodOptional<z.ZodString>;
                    message: z.ZodOptional<z.ZodString>;
                    at: z.ZodString;
                }, z.core.$strict>>;
                error: z.ZodNullable<z.ZodString>;
                reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                startedAt: z.ZodNullable<z.ZodISODateTime>;
                submittedAt: z.ZodNullable<z.ZodISODateTime>;
                finishedAt: z.ZodNullable<z.ZodISODateTime>;
                updatedAt: z.ZodISODateTime;
                checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchAction: z.ZodNullable<z.ZodString>;
                cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
                cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
                stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
                stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            }, z.core.$strip>>;
            resources: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodString;
                type: z.ZodString;
                handle: z.ZodString;
                state: z.ZodEnum<{
                    held: "held";
                    orphaned: "orphaned";
                    release_requested: "release_requested";
                    released: "released";
                }>;
                attempts: z.ZodNumber;
                verifiedAt: z.ZodNullable<z.ZodISODateTime>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>>;
            sideEffects: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodString;
                operationId: z.ZodString;
                providerRef: z.ZodNullable<z.ZodString>;
                externalRecordId: z.ZodNullable<z.ZodString>;
                externalVersion: z.ZodNullable<z.ZodString>;
                reversible: z.ZodBoolean;
                description: z.ZodNullable<z.ZodString>;
                outcome: z.ZodEnum<{
                    committed: "committed";
                    compensated: "compensated";
                    not_committed: "not_committed";
                    unknown: "unknown";
                }>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                evidence: z.ZodNullable<z.ZodUnknown>;
            }, z.core.$strip>>;
            reviewItems: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodNullable<z.ZodString>;
                sideEffectId: z.ZodNullable<z.ZodString>;
                resourceId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    approve_compensation: "approve_compensation";
                    orphaned_resource: "orphaned_resource";
                    orphaned_side_effect: "orphaned_side_effect";
                    resolve_uncertain: "resolve_uncertain";
                }>;
                subject: z.ZodString;
                proposal: z.ZodNullable<z.ZodUnknown>;
                deadline: z.ZodISODateTime;
                status: z.ZodEnum<{
                    approved: "approved";
                    escalated: "escalated";
                    open: "open";
                    rejected: "rejected";
                    resolved: "resolved";
                }>;
                assignee: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                decidedBy: z.ZodNullable<z.ZodString>;
                decidedAt: z.ZodNullable<z.ZodISODateTime>;
                resolution: z.ZodNullable<z.ZodString>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>>;
        }, z.core.$strip>;
    };
    readonly scheduleWorkItem: {
        readonly startsWork: true;
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/work-items";
        readonly auth: readonly ["admin", "agent"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            intentVersion: z.ZodNumber;
            proposalVersion: z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
            commitsEffect: z.ZodOptional<z.ZodBoolean>;
            correlationId: z.ZodOptional<z.ZodString>;
            idempotencyKey: z.ZodOptional<z.ZodString>;
            parentWorkItemId: z.ZodOptional<z.ZodString>;
            input: z.ZodOptional<z.ZodUnknown>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            parentWorkItemId: z.ZodNullable<z.ZodString>;
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            correlationId: z.ZodString;
            input: z.ZodNullable<z.ZodUnknown>;
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            preparedIntentVersion: z.ZodNumber;
            proposalVersion: z.ZodNullable<z.ZodNumber>;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            commitsEffect: z.ZodBoolean;
            operationId: z.ZodNullable<z.ZodString>;
            providerRef: z.ZodNullable<z.ZodString>;
            idempotencyKey: z.ZodString;
            leaseOwner: z.ZodNullable<z.ZodString>;
            leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
            heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
            attempt: z.ZodNumber;
            partialResult: z.ZodNullable<z.ZodUnknown>;
            partialComplete: z.ZodNullable<z.ZodBoolean>;
            result: z.ZodNullable<z.ZodUnknown>;
            progress: z.ZodNullable<z.ZodObject<{
                done: z.ZodNumber;
                total: z.ZodOptional<z.ZodNumber>;
                unit: z.ZodOptional<z.ZodString>;
                message: z.ZodOptional<z.ZodString>;
                at: z.ZodString;
            }, z.core.$strict>>;
            error: z.ZodNullable<z.ZodString>;
            reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            startedAt: z.ZodNullable<z.ZodISODateTime>;
            submittedAt: z.ZodNullable<z.ZodISODateTime>;
            finishedAt: z.ZodNullable<z.ZodISODateTime>;
            updatedAt: z.ZodISODateTime;
            checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchAction: z.ZodNullable<z.ZodString>;
            cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
            cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
            stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Schedule a child work item; 409 once the task's cancellation was requested or when intentVersion is stale";
    };
    readonly startWorkItem: {
        readonly startsWork: true;
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/work-items/start";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            intentVersion: z.ZodNumber;
            proposalVersion: z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
            commitsEffect: z.ZodOptional<z.ZodBoolean>;
            correlationId: z.ZodOptional<z.ZodString>;
            idempotencyKey: z.ZodOptional<z.ZodString>;
            parentWorkItemId: z.ZodOptional<z.ZodString>;
            input: z.ZodOptional<z.ZodUnknown>;
            workerId: z.ZodString;
            leaseMs: z.ZodOptional<z.ZodNumber>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            parentWorkItemId: z.ZodNullable<z.ZodString>;
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            correlationId: z.ZodString;
            input: z.ZodNullable<z.ZodUnknown>;
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            preparedIntentVersion: z.ZodNumber;
            proposalVersion: z.ZodNullable<z.ZodNumber>;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            commitsEffect: z.ZodBoolean;
            operationId: z.ZodNullable<z.ZodString>;
            providerRef: z.ZodNullable<z.ZodString>;
            idempotencyKey: z.ZodString;
            leaseOwner: z.ZodNullable<z.ZodString>;
            leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
            heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
            attempt: z.ZodNumber;
            partialResult: z.ZodNullable<z.ZodUnknown>;
            partialComplete: z.ZodNullable<z.ZodBoolean>;
            result: z.ZodNullable<z.ZodUnknown>;
            progress: z.ZodNullable<z.ZodObject<{
                done: z.ZodNumber;
                total: z.ZodOptional<z.ZodNumber>;
                unit: z.ZodOptional<z.ZodString>;
                message: z.ZodOptional<z.ZodString>;
                at: z.ZodString;
            }, z.core.$strict>>;
            error: z.ZodNullable<z.ZodString>;
            reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            startedAt: z.ZodNullable<z.ZodISODateTime>;
            submittedAt: z.ZodNullable<z.ZodISODateTime>;
            finishedAt: z.ZodNullable<z.ZodISODateTime>;
            updatedAt: z.ZodISODateTime;
            checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchAction: z.ZodNullable<z.ZodString>;
            cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
            cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
            stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            leaseToken: z.ZodString;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Schedule a child and lease it to the caller in one step, for work the caller runs itself (an AI SDK tool call, an MCP gateway call); 409 once the task's cancellation was requested or when intentVersion is stale";
    };
    readonly cancelTask: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/cancel";
        readonly auth: readonly ["admin", "agent", "user", "operator"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodDiscriminatedUnion<[z.ZodObject<{
            kind: z.ZodLiteral<"boundary">;
            boundary: z.ZodObject<{
                taskId: z.ZodString;
                intentVersion: z.ZodNumber;
                cancelRequestedAt: z.ZodISODateTime;
                reason: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                alreadyRequested: z.ZodBoolean;
            }, z.core.$strip>;
        }, z.core.$strip>, z.ZodObject<{
            kind: z.ZodLiteral<"already_finished">;
            taskId: z.ZodString;
            stage: z.ZodEnum<{
                active: "active";
                cancel_requested: "cancel_requested";
                cancelled: "cancelled";
                completed: "completed";
                failed: "failed";
            }>;
            endedAt: z.ZodNullable<z.ZodISODateTime>;
            message: z.ZodString;
        }, z.core.$strip>], "kind">;
        readonly status: 202;
        readonly summary: "Stop: record the cancellation boundary (intent version +1) before anything else; a repeat returns the same boundary";
    };
    readonly completeTask: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/complete";
        readonly auth: readonly ["admin", "agent"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            note: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            task: z.ZodObject<{
                id: z.ZodString;
                ownerId: z.ZodString;
                conversationId: z.ZodNullable<z.ZodString>;
                title: z.ZodString;
                riskLevel: z.ZodEnum<{
                    high: "high";
                    low: "low";
                }>;
                stage: z.ZodEnum<{
                    active: "active";
                    cancel_requested: "cancel_requested";
                    cancelled: "cancelled";
                    completed: "completed";
                    failed: "failed";
                }>;
                intentVersion: z.ZodNumber;
                proposalVersion: z.ZodNumber;
                proposal: z.ZodNullable<z.ZodUnknown>;
                cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelReason: z.ZodNullable<z.ZodString>;
                cancelRequestedBy: z.ZodNullable<z.ZodString>;
                cancelIntentVersion: z.ZodNullable<z.ZodNumber>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                settledAt: z.ZodNullable<z.ZodISODateTime>;
                turnId: z.ZodNullable<z.ZodString>;
                endedAt: z.ZodNullable<z.ZodISODateTime>;
                endReason: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>;
            alreadyFinished: z.ZodBoolean;
        }, z.core.$strip>;
        readonly summary: "The agent finished the task (every child has ended): it shows as completed everywhere, and Stop on it answers that nothing is running; a repeat changes nothing";
    };
    readonly failTask: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/fail";
        readonly auth: readonly ["admin", "agent"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            error: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            task: z.ZodObject<{
                id: z.ZodString;
                ownerId: z.ZodString;
                conversationId: z.ZodNullable<z.ZodString>;
                title: z.ZodString;
                riskLevel: z.ZodEnum<{
                    high: "high";
                    low: "low";
                }>;
                stage: z.ZodEnum<{
                    active: "active";
                    cancel_requested: "cancel_requested";
                    cancelled: "cancelled";
                    completed: "completed";
                    failed: "failed";
                }>;
                intentVersion: z.ZodNumber;
                proposalVersion: z.ZodNumber;
                proposal: z.ZodNullable<z.ZodUnknown>;
                cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelReason: z.ZodNullable<z.ZodString>;
                cancelRequestedBy: z.ZodNullable<z.ZodString>;
                cancelIntentVersion: z.ZodNullable<z.ZodNumber>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                settledAt: z.ZodNullable<z.ZodISODateTime>;
                turnId: z.ZodNullable<z.ZodString>;
                endedAt: z.ZodNullable<z.ZodISODateTime>;
                endReason: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>;
            alreadyFinished: z.ZodBoolean;
        }, z.core.$strip>;
        readonly summary: "The agent gave up on the task (every child has ended), with the reason; a repeat changes nothing";
    };
    readonly requestReversal: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/reversal";
        readonly auth: readonly ["admin", "agent", "user", "operator"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            taskId: z.ZodString;
            reviewItems: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodNullable<z.ZodString>;
                sideEffectId: z.ZodNullable<z.ZodString>;
                resourceId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    approve_compensation: "approve_compensation";
                    orphaned_resource: "orphaned_resource";
                    orphaned_side_effect: "orphaned_side_effect";
                    resolve_uncertain: "resolve_uncertain";
                }>;
                subject: z.ZodString;
                proposal: z.ZodNullable<z.ZodUnknown>;
                deadline: z.ZodISODateTime;
                status: z.ZodEnum<{
                    approved: "approved";
                    escalated: "escalated";
                    open: "open";
                    rejected: "rejected";
                    resolved: "resolved";
                }>;
                assignee: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                decidedBy: z.ZodNullable<z.ZodString>;
                decidedAt: z.ZodNullable<z.ZodISODateTime>;
                resolution: z.ZodNullable<z.ZodString>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>>;
            irreversible: z.ZodArray<z.ZodObject<{
                sideEffectId: z.ZodString;
                description: z.ZodString;
            }, z.core.$strip>>;
            message: z.ZodString;
        }, z.core.$strip>;
        readonly summary: "Ask to undo what a finished task did: a review item per reversible effect, approved by another person (same rules as after a Stop); never a side effect of Stop";
    };
    readonly getCancellation: {
        readonly method: "GET";
        readonly path: "/api/tasks/{taskId}/cancellation";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            task_id: z.ZodString;
            scope: z.ZodObject<{
                kind: z.ZodEnum<{
                    conversation: "conversation";
                    incident: "incident";
                    person: "person";
                    task: "task";
                    work_item: "work_item";
                }>;
                ref: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>;
            status: z.ZodEnum<{
                CANCELLATION_FAILED: "CANCELLATION_FAILED";
                CANCELLED: "CANCELLED";
                IN_PROGRESS: "IN_PROGRESS";
                PARTIALLY_CANCELLED: "PARTIALLY_CANCELLED";
            }>;
            cancel_requested_at: z.ZodISODateTime;
            cancelled_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                cancellation_status: z.ZodEnum<{
                    CANCELLED: "CANCELLED";
                    CANCELLED_INCOMPLETE: "CANCELLED_INCOMPLETE";
                    UNRECOVERABLE: "UNRECOVERABLE";
                }>;
                partial_result: z.ZodNullable<z.ZodObject<{
                    marker: z.ZodLiteral<"PARTIAL_RESULT">;
                    value: z.ZodUnknown;
                }, z.core.$strip>>;
                orphaned_resources: z.ZodArray<z.ZodString>;
            }, z.core.$strip>>;
            orphaned_side_effects: z.ZodArray<z.ZodObject<{
                tool_name: z.ZodString;
                tool_call_id: z.ZodString;
                description: z.ZodString;
            }, z.core.$strip>>;
            completed_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodString;
            }, z.core.$strip>>;
            uncertain_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodString;
                reconcile_deadline: z.ZodNullable<z.ZodISODateTime>;
            }, z.core.$strip>>;
            settled_at: z.ZodNullable<z.ZodISODateTime>;
            tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodEnum<{
                    cancelled: "cancelled";
                    cancelled_incomplete: "cancelled_incomplete";
                    cancelling: "cancelling";
                    completed: "completed";
                    failed: "failed";
                    partial: "partial";
                    queued: "queued";
                    running: "running";
                    submitted: "submitted";
                    uncertain: "uncertain";
                    unrecoverable: "unrecoverable";
                }>;
                outcome: z.ZodObject<{
                    kind: z.ZodEnum<{
                        abandoned: "abandoned";
                        awaiting_service: "awaiting_service";
                        completed: "completed";
                        completed_before_stop: "completed_before_stop";
                        could_not_stop_finished: "could_not_stop_finished";
                        could_not_stop_running: "could_not_stop_running";
                        discarded: "discarded";
                        failed: "failed";
                        finished_after_stop: "finished_after_stop";
                        never_started: "never_started";
                        outcome_unknown: "outcome_unknown";
                        reversed: "reversed";
                        running: "running";
                        stopped: "stopped";
                        stopped_partial_kept: "stopped_partial_kept";
                        stopping: "stopping";
                        took_effect: "took_effect";
                        waiting: "waiting";
                    }>;
                    short: z.ZodString;
                    label: z.ZodString;
                }, z.core.$strip>;
            }, z.core.$strip>>;
            orphaned_resources: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                type: z.ZodString;
                handle: z.ZodString;
            }, z.core.$strip>>;
            held_resources: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                type: z.ZodString;
                handle: z.ZodString;
            }, z.core.$strip>>;
            open_review_items: z.ZodNumber;
            user_message: z.ZodString;
        }, z.core.$strip>;
        readonly summary: "The cancellation summary (what stopped, what completed, what is uncertain), from recorded facts only";
    };
    readonly stopWorkItem: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/cancel";
        readonly auth: readonly ["admin", "agent", "user", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodDiscriminatedUnion<[z.ZodObject<{
            kind: z.ZodLiteral<"boundary">;
            boundary: z.ZodObject<{
                workItemId: z.ZodString;
                taskId: z.ZodString;
                stopRequestedAt: z.ZodISODateTime;
                reason: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                descendants: z.ZodNumber;
                alreadyRequested: z.ZodBoolean;
            }, z.core.$strip>;
        }, z.core.$strip>, z.ZodObject<{
            kind: z.ZodLiteral<"already_finished">;
            workItemId: z.ZodString;
            taskId: z.ZodString;
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            message: z.ZodString;
        }, z.core.$strip>], "kind">;
        readonly status: 202;
        readonly summary: "Stop one step (and its descendants) while the rest of the task goes on: its own boundary first (queued descendants never start, its commitment's checkpoint is refused), then each running one is stopped through its mechanism; a repeat returns the same boundary";
    };
    readonly getWorkItemCancellation: {
        readonly method: "GET";
        readonly path: "/api/work-items/{id}/cancellation";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            task_id: z.ZodString;
            scope: z.ZodObject<{
                kind: z.ZodEnum<{
                    conversation: "conversation";
                    incident: "incident";
                    person: "person";
                    task: "task";
                    work_item: "work_item";
                }>;
                ref: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>;
            status: z.ZodEnum<{
                CANCELLATION_FAILED: "CANCELLATION_FAILED";
                CANCELLED: "CANCELLED";
                IN_PROGRESS: "IN_PROGRESS";
                PARTIALLY_CANCELLED: "PARTIALLY_CANCELLED";
            }>;
            cancel_requested_at: z.ZodISODateTime;
            cancelled_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                cancellation_status: z.ZodEnum<{
                    CANCELLED: "CANCELLED";
                    CANCELLED_INCOMPLETE: "CANCELLED_INCOMPLETE";
                    UNRECOVERABLE: "UNRECOVERABLE";
                }>;
                partial_result: z.ZodNullable<z.ZodObject<{
                    marker: z.ZodLiteral<"PARTIAL_RESULT">;
                    value: z.ZodUnknown;
                }, z.core.$strip>>;
                orphaned_resources: z.ZodArray<z.ZodString>;
            }, z.core.$strip>>;
            orphaned_side_effects: z.ZodArray<z.ZodObject<{
                tool_name: z.ZodString;
                tool_call_id: z.ZodString;
                description: z.ZodString;
            }, z.core.$strip>>;
            completed_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodString;
            }, z.core.$strip>>;
            uncertain_tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodString;
                reconcile_deadline: z.ZodNullable<z.ZodISODateTime>;
            }, z.core.$strip>>;
            settled_at: z.ZodNullable<z.ZodISODateTime>;
            tool_calls: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                status: z.ZodEnum<{
                    cancelled: "cancelled";
                    cancelled_incomplete: "cancelled_incomplete";
                    cancelling: "cancelling";
                    completed: "completed";
                    failed: "failed";
                    partial: "partial";
                    queued: "queued";
                    running: "running";
                    submitted: "submitted";
                    uncertain: "uncertain";
                    unrecoverable: "unrecoverable";
                }>;
                outcome: z.ZodObject<{
                    kind: z.ZodEnum<{
                        abandoned: "abandoned";
                        awaiting_service: "awaiting_service";
                        completed: "completed";
                        completed_before_stop: "completed_before_stop";
                        could_not_stop_finished: "could_not_stop_finished";
                        could_not_stop_running: "could_not_stop_running";
                        discarded: "discarded";
                        failed: "failed";
                        finished_after_stop: "finished_after_stop";
                        never_started: "never_started";
                        outcome_unknown: "outcome_unknown";
                        reversed: "reversed";
                        running: "running";
                        stopped: "stopped";
                        stopped_partial_kept: "stopped_partial_kept";
                        stopping: "stopping";
                        took_effect: "took_effect";
                        waiting: "waiting";
                    }>;
                    short: z.ZodString;
                    label: z.ZodString;
                }, z.core.$strip>;
            }, z.core.$strip>>;
            orphaned_resources: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                type: z.ZodString;
                handle: z.ZodString;
            }, z.core.$strip>>;
            held_resources: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                tool_name: z.ZodString;
                type: z.ZodString;
                handle: z.ZodString;
            }, z.core.$strip>>;
            open_review_items: z.ZodNumber;
            user_message: z.ZodString;
        }, z.core.$strip>;
        readonly summary: "The summary of a Stop of one step (scope work_item): the step and its descendants, from recorded facts only; 404 if it was not stopped alone";
    };
    readonly stopConversation: {
        readonly method: "POST";
        readonly path: "/api/conversations/{conversationId}/cancel";
        readonly auth: readonly ["admin", "agent", "user", "operator"];
        readonly params: z.ZodObject<{
            conversationId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            scope: z.ZodObject<{
                kind: z.ZodEnum<{
                    conversation: "conversation";
                    incident: "incident";
                    person: "person";
                    task: "task";
                    work_item: "work_item";
                }>;
                ref: z.ZodString;
            }, z.core.$strip>;
            boundaries: z.ZodArray<z.ZodObject<{
                taskId: z.ZodString;
                intentVersion: z.ZodNumber;
                cancelRequestedAt: z.ZodISODateTime;
                reason: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                alreadyRequested: z.ZodBoolean;
            }, z.core.$strip>>;
            alreadyFinished: z.ZodArray<z.ZodString>;
        }, z.core.$strip>;
        readonly status: 202;
        readonly summary: "Stop everything of a conversation: a boundary on each of its tasks still active (scope conversation), each then stopped like its own Stop; a repeat changes nothing";
    };
    readonly stopPerson: {
        readonly method: "POST";
        readonly path: "/api/people/{ownerId}/cancel";
        readonly auth: readonly ["admin", "agent", "user", "operator"];
        readonly params: z.ZodObject<{
            ownerId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            scope: z.ZodObject<{
                kind: z.ZodEnum<{
                    conversation: "conversation";
                    incident: "incident";
                    person: "person";
                    task: "task";
                    work_item: "work_item";
                }>;
                ref: z.ZodString;
            }, z.core.$strip>;
            boundaries: z.ZodArray<z.ZodObject<{
                taskId: z.ZodString;
                intentVersion: z.ZodNumber;
                cancelRequestedAt: z.ZodISODateTime;
                reason: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                alreadyRequested: z.ZodBoolean;
            }, z.core.$strip>>;
            alreadyFinished: z.ZodArray<z.ZodString>;
        }, z.core.$strip>;
        readonly status: 202;
        readonly summary: "Stop everything of a person (by owner id; a user only their own): a boundary on each of their tasks still active (scope person)";
    };
    readonly listIncidents: {
        readonly method: "GET";
        readonly path: "/api/incidents";
        readonly auth: readonly ["admin", "operator", "support"];
        readonly response: z.ZodObject<{
            incidents: z.ZodArray<z.ZodObject<{
                incident: z.ZodObject<{
                    id: z.ZodString;
                    targetKind: z.ZodEnum<{
                        token: "token";
                        tool: "tool";
                    }>;
                    target: z.ZodString;
                    reason: z.ZodString;
                    state: z.ZodEnum<{
                        active: "active";
                        lift_requested: "lift_requested";
                        lifted: "lifted";
                    }>;
                    openedBy: z.ZodString;
                    liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                    liftRequestedBy: z.ZodNullable<z.ZodString>;
                    liftReason: z.ZodNullable<z.ZodString>;
                    liftedAt: z.ZodNullable<z.ZodISODateTime>;
                    liftedBy: z.ZodNullable<z.ZodString>;
                    createdAt: z.ZodISODateTime;
                    updatedAt: z.ZodISODateTime;
                }, z.core.$strip>;
                on: z.ZodBoolean;
                tasks: z.ZodNumber;
                openReviewItems: z.ZodNumber;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "Every incident's kill switch, newest first: on or lifted, tasks touched, open review items";
    };
    readonly openIncident: {
        readonly method: "POST";
        readonly path: "/api/incidents";
        readonly auth: readonly ["admin", "operator"];
        readonly body: z.ZodObject<{
            targetKind: z.ZodEnum<{
                token: "token";
                tool: "tool";
            }>;
            target: z.ZodString;
            reason: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            incident: z.ZodObject<{
                id: z.ZodString;
                targetKind: z.ZodEnum<{
                    token: "token";
                    tool: "tool";
                }>;
                target: z.ZodString;
                reason: z.ZodString;
                state: z.ZodEnum<{
                    active: "active";
                    lift_requested: "lift_requested";
                    lifted: "lifted";
                }>;
                openedBy: z.ZodString;
                liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                liftRequestedBy: z.ZodNullable<z.ZodString>;
                liftReason: z.ZodNullable<z.ZodString>;
                liftedAt: z.ZodNullable<z.ZodISODateTime>;
                liftedBy: z.ZodNullable<z.ZodString>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>;
            alreadyOpen: z.ZodBoolean;
            stoppedWorkItems: z.ZodArray<z.ZodString>;
            stoppedTasks: z.ZodArray<z.ZodString>;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Quarantine a tool or an agent token: from the commit nothing of it is scheduled or claimed anywhere (409 quarantined, with the reason), and everything of it in flight is stopped like a Stop";
    };
    readonly listIncidentTargets: {
        readonly method: "GET";
        readonly path: "/api/incidents/targets";
        readonly auth: readonly ["admin", "operator"];
        readonly response: z.ZodObject<{
            tools: z.ZodArray<z.ZodObject<{
                name: z.ZodString;
                live: z.ZodNumber;
            }, z.core.$strip>>;
            tokens: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                name: z.ZodString;
                role: z.ZodString;
                prefix: z.ZodString;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "What a kill switch can name: the tools the ledger knows (exact names, with their live work items) and the agent and worker tokens (by id)";
    };
    readonly getIncident: {
        readonly method: "GET";
        readonly path: "/api/incidents/{id}";
        readonly auth: readonly ["admin", "operator", "support"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            incident: z.ZodObject<{
                id: z.ZodString;
                targetKind: z.ZodEnum<{
                    token: "token";
                    tool: "tool";
                }>;
                target: z.ZodString;
                reason: z.ZodString;
                state: z.ZodEnum<{
                    active: "active";
                    lift_requested: "lift_requested";
                    lifted: "lifted";
                }>;
                openedBy: z.ZodString;
                liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                liftRequestedBy: z.ZodNullable<z.ZodString>;
                liftReason: z.ZodNullable<z.ZodString>;
                liftedAt: z.ZodNullable<z.ZodISODateTime>;
                liftedBy: z.ZodNullable<z.ZodString>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>;
            on: z.ZodBoolean;
            tasks: z.ZodArray<z.ZodObject<{
                taskId: z.ZodString;
                title: z.ZodString;
                stage: z.ZodEnum<{
                    active: "active";
                    cancel_requested: "cancel_requested";
                    cancelled: "cancelled";
                    completed: "completed";
                    failed: "failed";
                }>;
                ownerId: z.ZodString;
                steps: z.ZodArray<z.ZodObject<{
                    workItemId: z.ZodString;
                    toolName: z.ZodString;
                    status: z.ZodEnum<{
                        cancelled: "cancelled";
                        cancelled_incomplete: "cancelled_incomplete";
                        cancelling: "cancelling";
                        completed: "completed";
                        failed: "failed";
                        partial: "partial";
                        queued: "queued";
                        running: "running";
                        submitted: "submitted";
                        uncertain: "uncertain";
                        unrecoverable: "unrecoverable";
                    }>;
                    outcome: z.ZodObject<{
                        kind: z.ZodEnum<{
                            abandoned: "abandoned";
                            awaiting_service: "awaiting_service";
                            completed: "completed";
                            completed_before_stop: "completed_before_stop";
                            could_not_stop_finished: "could_not_stop_finished";
                            could_not_stop_running: "could_not_stop_running";
                            discarded: "discarded";
                            failed: "failed";
                            finished_after_stop: "finished_after_stop";
                            never_started: "never_started";
                            outcome_unknown: "outcome_unknown";
                            reversed: "reversed";
                            running: "running";
                            stopped: "stopped";
                            stopped_partial_kept: "stopped_partial_kept";
                            stopping: "stopping";
                            took_effect: "took_effect";
                            waiting: "waiting";
                        }>;
                        short: z.ZodString;
                        label: z.ZodString;
                        moving: z.ZodBoolean;
                    }, z.core.$strip>;
                }, z.core.$strip>>;
                needsPerson: z.ZodArray<z.ZodObject<{
                    id: z.ZodString;
                    kind: z.ZodString;
                    subject: z.ZodString;
                    deadline: z.ZodISODateTime;
                    status: z.ZodString;
                }, z.core.$strip>>;
            }, z.core.$strip>>;
            counts: z.ZodObject<{
                tasks: z.ZodNumber;
                steps: z.ZodNumber;
                stillStopping: z.ZodNumber;
                needsPerson: z.ZodNumber;
            }, z.core.$strip>;
        }, z.core.$strip>;
        readonly summary: "One incident: the switch, the tasks it touched, each stopped step's outcome, and what needs a person";
    };
    readonly requestIncidentLift: {
        readonly method: "POST";
        readonly path: "/api/incidents/{id}/lift";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            targetKind: z.ZodEnum<{
                token: "token";
                tool: "tool";
            }>;
            target: z.ZodString;
            reason: z.ZodString;
            state: z.ZodEnum<{
                active: "active";
                lift_requested: "lift_requested";
                lifted: "lifted";
            }>;
            openedBy: z.ZodString;
            liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
            liftRequestedBy: z.ZodNullable<z.ZodString>;
            liftReason: z.ZodNullable<z.ZodString>;
            liftedAt: z.ZodNullable<z.ZodISODateTime>;
            liftedBy: z.ZodNullable<z.ZodString>;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "Ask to lift a kill switch (with why); it stays on until another person confirms (maker-checker)";
    };
    readonly confirmIncidentLift: {
        readonly method: "POST";
        readonly path: "/api/incidents/{id}/lift/confirm";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{}, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            targetKind: z.ZodEnum<{
                token: "token";
                tool: "tool";
            }>;
            target: z.ZodString;
            reason: z.ZodString;
            state: z.ZodEnum<{
                active: "active";
                lift_requested: "lift_requested";
                lifted: "lifted";
            }>;
            openedBy: z.ZodString;
            liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
            liftRequestedBy: z.ZodNullable<z.ZodString>;
            liftReason: z.ZodNullable<z.ZodString>;
            liftedAt: z.ZodNullable<z.ZodISODateTime>;
            liftedBy: z.ZodNullable<z.ZodString>;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "Confirm lifting a kill switch — never by the person who asked (403); from the commit its target may start work again";
    };
    readonly withdrawIncidentLift: {
        readonly method: "POST";
        readonly path: "/api/incidents/{id}/lift/withdraw";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{}, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            targetKind: z.ZodEnum<{
                token: "token";
                tool: "tool";
            }>;
            target: z.ZodString;
            reason: z.ZodString;
            state: z.ZodEnum<{
                active: "active";
                lift_requested: "lift_requested";
                lifted: "lifted";
            }>;
            openedBy: z.ZodString;
            liftRequestedAt: z.ZodNullable<z.ZodISODateTime>;
            liftRequestedBy: z.ZodNullable<z.ZodString>;
            liftReason: z.ZodNullable<z.ZodString>;
            liftedAt: z.ZodNullable<z.ZodISODateTime>;
            liftedBy: z.ZodNullable<z.ZodString>;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "Withdraw (or refuse) a request to lift a kill switch: it stays on";
    };
    readonly stopPreview: {
        readonly method: "GET";
        readonly path: "/api/tasks/{taskId}/stop-preview";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodDiscriminatedUnion<[z.ZodObject<{
            task_id: z.ZodString;
            state: z.ZodLiteral<"would_stop">;
            plan_source: z.ZodLiteral<"rules">;
            model_may_advise: z.ZodBoolean;
            children: z.ZodArray<z.ZodObject<{
                tool_call_id: z.ZodString;
                work_item_id: z.ZodString;
                tool_name: z.ZodString;
                action: z.ZodNullable<z.ZodEnum<{
                    abort: "abort";
                    await_partial: "await_partial";
                    noop: "noop";
                    notify: "notify";
                    rollback: "rollback";
                }>>;
                preview: z.ZodObject<{
                    kind: z.ZodEnum<{
                        ask_service: "ask_service";
                        cannot_stop: "cannot_stop";
                        effect_final: "effect_final";
                        effect_needs_approval: "effect_needs_approval";
                        never_starts: "never_starts";
                        rolled_back: "rolled_back";
                        service_cancels: "service_cancels";
                        stops_keeping_partial: "stops_keeping_partial";
                        told_to_stop: "told_to_stop";
                    }>;
                    headed_for: z.ZodEnum<{
                        abandoned: "abandoned";
                        awaiting_service: "awaiting_service";
                        completed: "completed";
                        completed_before_stop: "completed_before_stop";
                        could_not_stop_finished: "could_not_stop_finished";
                        could_not_stop_running: "could_not_stop_running";
                        discarded: "discarded";
                        failed: "failed";
                        finished_after_stop: "finished_after_stop";
                        never_started: "never_started";
                        outcome_unknown: "outcome_unknown";
                        reversed: "reversed";
                        running: "running";
                        stopped: "stopped";
                        stopped_partial_kept: "stopped_partial_kept";
                        stopping: "stopping";
                        took_effect: "took_effect";
                        waiting: "waiting";
                    }>;
                    short: z.ZodString;
                    tone: z.ZodEnum<{
                        accent: "accent";
                        danger: "danger";
                        neutral: "neutral";
                        ok: "ok";
                        warn: "warn";
                    }>;
                    sentence: z.ZodString;
                    subject: z.ZodString;
                    predicate: z.ZodString;
                }, z.core.$strip>;
            }, z.core.$strip>>;
            headline: z.ZodString;
            computed_at: z.ZodISODateTime;
        }, z.core.$strip>, z.ZodObject<{
            task_id: z.ZodString;
            state: z.ZodLiteral<"already_requested">;
            cancel_requested_at: z.ZodISODateTime;
            headline: z.ZodString;
            computed_at: z.ZodISODateTime;
        }, z.core.$strip>, z.ZodObject<{
            task_id: z.ZodString;
            state: z.ZodLiteral<"already_finished">;
            stage: z.ZodEnum<{
                active: "active";
                cancel_requested: "cancel_requested";
                cancelled: "cancelled";
                completed: "completed";
                failed: "failed";
            }>;
            headline: z.ZodString;
            computed_at: z.ZodISODateTime;
        }, z.core.$strip>], "state">;
        readonly summary: "What Stop would do if pressed now — per child, the plan's action and the outcome it heads for, in the outcome vocabulary; computed from the same plan the engine records, writes nothing";
    };
    readonly taskEvents: {
        readonly method: "GET";
        readonly path: "/api/tasks/{taskId}/events";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly query: z.ZodObject<{
            lastEventId: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
        }, z.core.$strict>;
        readonly stream: true;
        readonly summary: "Server-sent ledger events of one task; resume with Last-Event-ID (header) or lastEventId (query)";
    };
    readonly allEvents: {
        readonly method: "GET";
        readonly path: "/api/events";
        readonly auth: readonly ["admin", "agent", "worker", "user", "operator", "support"];
        readonly query: z.ZodObject<{
            lastEventId: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
        }, z.core.$strict>;
        readonly stream: true;
        readonly summary: "Server-sent ledger events of every task the caller may see (a user: their own); resume with Last-Event-ID (header) or lastEventId (query)";
    };
    readonly claim: {
        readonly startsWork: true;
        readonly method: "POST";
        readonly path: "/api/workers/claim";
        readonly auth: readonly ["admin", "worker"];
        readonly body: z.ZodObject<{
            workerId: z.ZodString;
            toolNames: z.ZodOptional<z.ZodArray<z.ZodString>>;
            leaseMs: z.ZodOptional<z.ZodNumber>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            workItem: z.ZodNullable<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                parentWorkItemId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    external_action: "external_action";
                    local_worker: "local_worker";
                    model_request: "model_request";
                    remote_tool: "remote_tool";
                }>;
                toolName: z.ZodString;
                correlationId: z.ZodString;
                input: z.ZodNullable<z.ZodUnknown>;
                status: z.ZodEnum<{
                    cancelled: "cancelled";
                    cancelled_incomplete: "cancelled_incomplete";
                    cancelling: "cancelling";
                    completed: "completed";
                    failed: "failed";
                    partial: "partial";
                    queued: "queued";
                    running: "running";
                    submitted: "submitted";
                    uncertain: "uncertain";
                    unrecoverable: "unrecoverable";
                }>;
                preparedIntentVersion: z.ZodNumber;
                proposalVersion: z.ZodNullable<z.ZodNumber>;
                mechanism: z.ZodEnum<{
                    abort_signal: "abort_signal";
                    none: "none";
                    provider_cancel: "provider_cancel";
                    rollback: "rollback";
                }>;
                commitsEffect: z.ZodBoolean;
                operationId: z.ZodNullable<z.ZodString>;
                providerRef: z.ZodNullable<z.ZodString>;
                idempotencyKey: z.ZodString;
                leaseOwner: z.ZodNullable<z.ZodString>;
                leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
                heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
                attempt: z.ZodNumber;
                partialResult: z.ZodNullable<z.ZodUnknown>;
                partialComplete: z.ZodNullable<z.ZodBoolean>;
                result: z.ZodNullable<z.ZodUnknown>;
                progress: z.ZodNullable<z.ZodObject<{
                    done: z.ZodNumber;
                    total: z.ZodOptional<z.ZodNumber>;
                    unit: z.ZodOptional<z.ZodString>;
                    message: z.ZodOptional<z.ZodString>;
                    at: z.ZodString;
                }, z.core.$strict>>;
                error: z.ZodNullable<z.ZodString>;
                reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                startedAt: z.ZodNullable<z.ZodISODateTime>;
                submittedAt: z.ZodNullable<z.ZodISODateTime>;
                finishedAt: z.ZodNullable<z.ZodISODateTime>;
                updatedAt: z.ZodISODateTime;
                checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchAction: z.ZodNullable<z.ZodString>;
                cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
                cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
                stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
                stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
                leaseToken: z.ZodString;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "Claim the oldest queued work item that may start (lease + fencing token); workItem is null when there is none";
    };
    readonly heartbeat: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/heartbeat";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            leaseMs: z.ZodOptional<z.ZodNumber>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            cancelRequested: z.ZodBoolean;
            intentVersion: z.ZodNumber;
            leaseExpiresAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "Extend the lease; answers whether cancellation was requested (stop when cancelRequested is true)";
    };
    readonly checkpoint: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/checkpoint";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            intentVersion: z.ZodOptional<z.ZodNumber>;
            proposalVersion: z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            passed: z.ZodLiteral<true>;
            intentVersion: z.ZodNumber;
            proposalVersion: z.ZodNumber;
        }, z.core.$strip>;
        readonly summary: "The intent/proposal version check right before a commitment; 409 after the cancellation boundary or when a version moved";
    };
    readonly submitted: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/submitted";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            operationId: z.ZodString;
            providerRef: z.ZodOptional<z.ZodString>;
            externalRecordId: z.ZodOptional<z.ZodString>;
            externalVersion: z.ZodOptional<z.ZodString>;
            reversible: z.ZodOptional<z.ZodBoolean>;
            description: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            workItem: z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                parentWorkItemId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    external_action: "external_action";
                    local_worker: "local_worker";
                    model_request: "model_request";
                    remote_tool: "remote_tool";
                }>;
                toolName: z.ZodString;
                correlationId: z.ZodString;
                input: z.ZodNullable<z.ZodUnknown>;
                status: z.ZodEnum<{
                    cancelled: "cancelled";
                    cancelled_incomplete: "cancelled_incomplete";
                    cancelling: "cancelling";
                    completed: "completed";
                    failed: "failed";
                    partial: "partial";
                    queued: "queued";
                    running: "running";
                    submitted: "submitted";
                    uncertain: "uncertain";
                    unrecoverable: "unrecoverable";
                }>;
                preparedIntentVersion: z.ZodNumber;
                proposalVersion: z.ZodNullable<z.ZodNumber>;
                mechanism: z.ZodEnum<{
                    abort_signal: "abort_signal";
                    none: "none";
                    provider_cancel: "provider_cancel";
                    rollback: "rollback";
                }>;
                commitsEffect: z.ZodBoolean;
                operationId: z.ZodNullable<z.ZodString>;
                providerRef: z.ZodNullable<z.ZodString>;
                idempotencyKey: z.ZodString;
                leaseOwner: z.ZodNullable<z.ZodString>;
                leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
                heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
                attempt: z.ZodNumber;
                partialResult: z.ZodNullable<z.ZodUnknown>;
                partialComplete: z.ZodNullable<z.ZodBoolean>;
                result: z.ZodNullable<z.ZodUnknown>;
                progress: z.ZodNullable<z.ZodObject<{
                    done: z.ZodNumber;
                    total: z.ZodOptional<z.ZodNumber>;
                    unit: z.ZodOptional<z.ZodString>;
                    message: z.ZodOptional<z.ZodString>;
                    at: z.ZodString;
                }, z.core.$strict>>;
                error: z.ZodNullable<z.ZodString>;
                reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
                rowVersion: z.ZodNumber;
                createdAt: z.ZodISODateTime;
                startedAt: z.ZodNullable<z.ZodISODateTime>;
                submittedAt: z.ZodNullable<z.ZodISODateTime>;
                finishedAt: z.ZodNullable<z.ZodISODateTime>;
                updatedAt: z.ZodISODateTime;
                checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelDispatchAction: z.ZodNullable<z.ZodString>;
                cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
                cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
                stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
                stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
                stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            }, z.core.$strip>;
            sideEffect: z.ZodNullable<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodString;
                operationId: z.ZodString;
                providerRef: z.ZodNullable<z.ZodString>;
                externalRecordId: z.ZodNullable<z.ZodString>;
                externalVersion: z.ZodNullable<z.ZodString>;
                reversible: z.ZodBoolean;
                description: z.ZodNullable<z.ZodString>;
                outcome: z.ZodEnum<{
                    committed: "committed";
                    compensated: "compensated";
                    not_committed: "not_committed";
                    unknown: "unknown";
                }>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                evidence: z.ZodNullable<z.ZodUnknown>;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "Record the operation id of an external action the service accepted, before waiting for its result";
    };
    readonly complete: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/complete";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            outcome: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                completed: "completed";
                failed: "failed";
                partial: "partial";
            }>;
            result: z.ZodOptional<z.ZodUnknown>;
            partialResult: z.ZodOptional<z.ZodUnknown>;
            partialComplete: z.ZodOptional<z.ZodBoolean>;
            error: z.ZodOptional<z.ZodString>;
            externalRecordId: z.ZodOptional<z.ZodString>;
            externalVersion: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            parentWorkItemId: z.ZodNullable<z.ZodString>;
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            correlationId: z.ZodString;
            input: z.ZodNullable<z.ZodUnknown>;
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            preparedIntentVersion: z.ZodNumber;
            proposalVersion: z.ZodNullable<z.ZodNumber>;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            commitsEffect: z.ZodBoolean;
            operationId: z.ZodNullable<z.ZodString>;
            providerRef: z.ZodNullable<z.ZodString>;
            idempotencyKey: z.ZodString;
            leaseOwner: z.ZodNullable<z.ZodString>;
            leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
            heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
            attempt: z.ZodNumber;
            partialResult: z.ZodNullable<z.ZodUnknown>;
            partialComplete: z.ZodNullable<z.ZodBoolean>;
            result: z.ZodNullable<z.ZodUnknown>;
            progress: z.ZodNullable<z.ZodObject<{
                done: z.ZodNumber;
                total: z.ZodOptional<z.ZodNumber>;
                unit: z.ZodOptional<z.ZodString>;
                message: z.ZodOptional<z.ZodString>;
                at: z.ZodString;
            }, z.core.$strict>>;
            error: z.ZodNullable<z.ZodString>;
            reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            startedAt: z.ZodNullable<z.ZodISODateTime>;
            submittedAt: z.ZodNullable<z.ZodISODateTime>;
            finishedAt: z.ZodNullable<z.ZodISODateTime>;
            updatedAt: z.ZodISODateTime;
            checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchAction: z.ZodNullable<z.ZodString>;
            cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
            cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
            stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
        }, z.core.$strip>;
        readonly summary: "Report how the work item ended (completed, failed, or — after a stop — cancelled, partial, cancelled_incomplete)";
    };
    readonly reportPartial: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/partial";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            result: z.ZodUnknown;
            complete: z.ZodBoolean;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            ok: z.ZodLiteral<true>;
        }, z.core.$strip>;
        readonly summary: "Record a partial result (complete: true vouches that it is a complete, valid subset) before stopping";
    };
    readonly reportProgress: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/progress";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            done: z.ZodNumber;
            total: z.ZodOptional<z.ZodNumber>;
            unit: z.ZodOptional<z.ZodString>;
            message: z.ZodOptional<z.ZodString>;
            leaseToken: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            done: z.ZodNumber;
            total: z.ZodOptional<z.ZodNumber>;
            unit: z.ZodOptional<z.ZodString>;
            message: z.ZodOptional<z.ZodString>;
            at: z.ZodString;
        }, z.core.$strict>;
        readonly summary: "Report how far the running call got (done of total, unit, message); shown live, changes no state";
    };
    readonly markUncertain: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/uncertain";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            reason: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            parentWorkItemId: z.ZodNullable<z.ZodString>;
            kind: z.ZodEnum<{
                external_action: "external_action";
                local_worker: "local_worker";
                model_request: "model_request";
                remote_tool: "remote_tool";
            }>;
            toolName: z.ZodString;
            correlationId: z.ZodString;
            input: z.ZodNullable<z.ZodUnknown>;
            status: z.ZodEnum<{
                cancelled: "cancelled";
                cancelled_incomplete: "cancelled_incomplete";
                cancelling: "cancelling";
                completed: "completed";
                failed: "failed";
                partial: "partial";
                queued: "queued";
                running: "running";
                submitted: "submitted";
                uncertain: "uncertain";
                unrecoverable: "unrecoverable";
            }>;
            preparedIntentVersion: z.ZodNumber;
            proposalVersion: z.ZodNullable<z.ZodNumber>;
            mechanism: z.ZodEnum<{
                abort_signal: "abort_signal";
                none: "none";
                provider_cancel: "provider_cancel";
                rollback: "rollback";
            }>;
            commitsEffect: z.ZodBoolean;
            operationId: z.ZodNullable<z.ZodString>;
            providerRef: z.ZodNullable<z.ZodString>;
            idempotencyKey: z.ZodString;
            leaseOwner: z.ZodNullable<z.ZodString>;
            leaseExpiresAt: z.ZodNullable<z.ZodISODateTime>;
            heartbeatAt: z.ZodNullable<z.ZodISODateTime>;
            attempt: z.ZodNumber;
            partialResult: z.ZodNullable<z.ZodUnknown>;
            partialComplete: z.ZodNullable<z.ZodBoolean>;
            result: z.ZodNullable<z.ZodUnknown>;
            progress: z.ZodNullable<z.ZodObject<{
                done: z.ZodNumber;
                total: z.ZodOptional<z.ZodNumber>;
                unit: z.ZodOptional<z.ZodString>;
                message: z.ZodOptional<z.ZodString>;
                at: z.ZodString;
            }, z.core.$strict>>;
            error: z.ZodNullable<z.ZodString>;
            reconcileDeadline: z.ZodNullable<z.ZodISODateTime>;
            rowVersion: z.ZodNumber;
            createdAt: z.ZodISODateTime;
            startedAt: z.ZodNullable<z.ZodISODateTime>;
            submittedAt: z.ZodNullable<z.ZodISODateTime>;
            finishedAt: z.ZodNullable<z.ZodISODateTime>;
            updatedAt: z.ZodISODateTime;
            checkpointPassedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchedAt: z.ZodNullable<z.ZodISODateTime>;
            cancelDispatchAction: z.ZodNullable<z.ZodString>;
            cancelAnsweredAt: z.ZodNullable<z.ZodISODateTime>;
            cancelWithdrawnAt: z.ZodNullable<z.ZodISODateTime>;
            stopRequestedAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
            stopReason: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopRootId: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            stopSettledAt: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
        }, z.core.$strip>;
        readonly summary: "The lease holder does not know how an accepted action ended: hand it to reconciliation (never re-run)";
    };
    readonly holdResource: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/resources";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            type: z.ZodString;
            handle: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            workItemId: z.ZodString;
            type: z.ZodString;
            handle: z.ZodString;
            state: z.ZodEnum<{
                held: "held";
                orphaned: "orphaned";
                release_requested: "release_requested";
                released: "released";
            }>;
            attempts: z.ZodNumber;
            verifiedAt: z.ZodNullable<z.ZodISODateTime>;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Record a resource the running code holds (lock, temp file, session); its release is verified after a Stop";
    };
    readonly releaseResource: {
        readonly method: "POST";
        readonly path: "/api/work-items/{id}/resources/release";
        readonly auth: readonly ["admin", "worker"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            leaseToken: z.ZodString;
            type: z.ZodString;
            handle: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            taskId: z.ZodString;
            workItemId: z.ZodString;
            type: z.ZodString;
            handle: z.ZodString;
            state: z.ZodEnum<{
                held: "held";
                orphaned: "orphaned";
                release_requested: "release_requested";
                released: "released";
            }>;
            attempts: z.ZodNumber;
            verifiedAt: z.ZodNullable<z.ZodISODateTime>;
            createdAt: z.ZodISODateTime;
            updatedAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "The running code released a resource (a claim: it is reported released only after verification)";
    };
    readonly listReviewItems: {
        readonly method: "GET";
        readonly path: "/api/review-items";
        readonly auth: readonly ["admin", "agent", "worker", "operator", "support"];
        readonly query: z.ZodObject<{
            status: z.ZodOptional<z.ZodEnum<{
                approved: "approved";
                escalated: "escalated";
                open: "open";
                rejected: "rejected";
                resolved: "resolved";
            }>>;
            taskId: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            reviewItems: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                taskId: z.ZodString;
                workItemId: z.ZodNullable<z.ZodString>;
                sideEffectId: z.ZodNullable<z.ZodString>;
                resourceId: z.ZodNullable<z.ZodString>;
                kind: z.ZodEnum<{
                    approve_compensation: "approve_compensation";
                    orphaned_resource: "orphaned_resource";
                    orphaned_side_effect: "orphaned_side_effect";
                    resolve_uncertain: "resolve_uncertain";
                }>;
                subject: z.ZodString;
                proposal: z.ZodNullable<z.ZodUnknown>;
                deadline: z.ZodISODateTime;
                status: z.ZodEnum<{
                    approved: "approved";
                    escalated: "escalated";
                    open: "open";
                    rejected: "rejected";
                    resolved: "resolved";
                }>;
                assignee: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                decidedBy: z.ZodNullable<z.ZodString>;
                decidedAt: z.ZodNullable<z.ZodISODateTime>;
                resolution: z.ZodNullable<z.ZodString>;
                createdAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "Review items (what only a person can decide), ordered by deadline";
    };
    readonly decideReviewItem: {
        readonly method: "POST";
        readonly path: "/api/review-items/{id}/decision";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            decision: z.ZodEnum<{
                approve: "approve";
                reject: "reject";
                resolve: "resolve";
            }>;
            reason: z.ZodString;
            evidence: z.ZodOptional<z.ZodString>;
            finding: z.ZodOptional<z.ZodEnum<{
                cannot_tell: "cannot_tell";
                did_not_take_effect: "did_not_take_effect";
                took_effect: "took_effect";
            }>>;
            target: z.ZodOptional<z.ZodNullable<z.ZodString>>;
            expectedVersion: z.ZodOptional<z.ZodNullable<z.ZodString>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            status: z.ZodEnum<{
                approved: "approved";
                escalated: "escalated";
                open: "open";
                rejected: "rejected";
                resolved: "resolved";
            }>;
            compensation: z.ZodOptional<z.ZodObject<{
                status: z.ZodEnum<{
                    compensated: "compensated";
                    conflict: "conflict";
                    failed: "failed";
                }>;
                detail: z.ZodString;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "A person's decision: approve (bound to the exact proposal: target and version) or reject a compensation, or resolve an item";
    };
    readonly retryRelease: {
        readonly method: "POST";
        readonly path: "/api/review-items/{id}/retry-release";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            released: z.ZodBoolean;
            status: z.ZodEnum<{
                approved: "approved";
                escalated: "escalated";
                open: "open";
                rejected: "rejected";
                resolved: "resolved";
            }>;
            detail: z.ZodString;
        }, z.core.$strip>;
        readonly summary: "An orphaned resource: run the tool's cleanup again and verify with a re-query (each step recorded); released → the item is resolved, else it stays open";
    };
    readonly metrics: {
        readonly method: "GET";
        readonly path: "/api/metrics/cancellations";
        readonly auth: readonly ["admin", "agent", "worker", "operator", "support"];
        readonly query: z.ZodObject<{
            since: z.ZodOptional<z.ZodISODateTime>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            generation_cancellations: z.ZodObject<{
                count: z.ZodNumber;
                p50_ms: z.ZodNullable<z.ZodNumber>;
                p99_ms: z.ZodNullable<z.ZodNumber>;
                max_ms: z.ZodNullable<z.ZodNumber>;
            }, z.core.$strip>;
            action_cancellations: z.ZodObject<{
                stopped: z.ZodObject<{
                    count: z.ZodNumber;
                    p50_ms: z.ZodNullable<z.ZodNumber>;
                    p99_ms: z.ZodNullable<z.ZodNumber>;
                    max_ms: z.ZodNullable<z.ZodNumber>;
                }, z.core.$strip>;
                reconciled_or_finished: z.ZodObject<{
                    count: z.ZodNumber;
                    p50_ms: z.ZodNullable<z.ZodNumber>;
                    p99_ms: z.ZodNullable<z.ZodNumber>;
                    max_ms: z.ZodNullable<z.ZodNumber>;
                }, z.core.$strip>;
            }, z.core.$strip>;
            tasks: z.ZodObject<{
                stopped: z.ZodNumber;
                settled: z.ZodNumber;
            }, z.core.$strip>;
        }, z.core.$strip>;
        readonly summary: "Generation vs action cancellations, with latency from the Stop boundary to settlement";
    };
    readonly sendMessage: {
        readonly startsWork: true;
        readonly method: "POST";
        readonly path: "/api/conversations/{conversationId}/messages";
        readonly auth: readonly ["admin", "agent", "user"];
        readonly params: z.ZodObject<{
            conversationId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            text: z.ZodString;
            turnId: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            taskId: z.ZodString;
            intent: z.ZodEnum<{
                export: "export";
                order: "order";
                record_and_email: "record_and_email";
                unknown: "unknown";
            }>;
            reply: z.ZodString;
            proposal: z.ZodNullable<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "A chat message to the demo agent: it starts a task, prepares (and, for purchases, proposes) — it never commits before a confirmation";
    };
    readonly stopTurn: {
        readonly method: "POST";
        readonly path: "/api/conversations/{conversationId}/turns/{turnId}/cancel";
        readonly auth: readonly ["admin", "agent", "user"];
        readonly params: z.ZodObject<{
            conversationId: z.ZodString;
            turnId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            reason: z.ZodOptional<z.ZodString>;
            text: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodDiscriminatedUnion<[z.ZodObject<{
            kind: z.ZodLiteral<"boundary">;
            boundary: z.ZodObject<{
                taskId: z.ZodString;
                intentVersion: z.ZodNumber;
                cancelRequestedAt: z.ZodISODateTime;
                reason: z.ZodNullable<z.ZodString>;
                requestedBy: z.ZodNullable<z.ZodString>;
                alreadyRequested: z.ZodBoolean;
            }, z.core.$strip>;
        }, z.core.$strip>, z.ZodObject<{
            kind: z.ZodLiteral<"already_finished">;
            taskId: z.ZodString;
            stage: z.ZodEnum<{
                active: "active";
                cancel_requested: "cancel_requested";
                cancelled: "cancelled";
                completed: "completed";
                failed: "failed";
            }>;
            endedAt: z.ZodNullable<z.ZodISODateTime>;
            message: z.ZodString;
        }, z.core.$strip>], "kind">;
        readonly status: 202;
        readonly summary: "Stop a turn by the id its message carries — also before the agent's task exists: the task is then born with its boundary and nothing of it starts";
    };
    readonly editProposal: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/proposal";
        readonly auth: readonly ["admin", "agent", "user"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            items: z.ZodArray<z.ZodObject<{
                sku: z.ZodString;
                quantity: z.ZodNumber;
            }, z.core.$strict>>;
            expectedVersion: z.ZodNumber;
        }, z.core.$strict>;
        readonly response: z.ZodRecord<z.ZodString, z.ZodUnknown>;
        readonly summary: "Edit the proposal (a new version, which needs its own confirmation)";
    };
    readonly confirmProposal: {
        readonly method: "POST";
        readonly path: "/api/tasks/{taskId}/proposal/confirm";
        readonly auth: readonly ["admin", "agent", "user"];
        readonly params: z.ZodObject<{
            taskId: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            proposalVersion: z.ZodNumber;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            taskId: z.ZodString;
            proposalVersion: z.ZodNumber;
            workItems: z.ZodArray<z.ZodString>;
            alreadyConfirmed: z.ZodBoolean;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Confirm the proposal version you saw: its commitments are scheduled bound to that version (409 if it changed)";
    };
    readonly createToken: {
        readonly method: "POST";
        readonly path: "/api/tokens";
        readonly auth: readonly ["admin"];
        readonly body: z.ZodObject<{
            name: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                agent: "agent";
                worker: "worker";
            }>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            token: z.ZodString;
            record: z.ZodObject<{
                id: z.ZodString;
                name: z.ZodString;
                role: z.ZodEnum<{
                    admin: "admin";
                    agent: "agent";
                    worker: "worker";
                }>;
                prefix: z.ZodString;
                createdAt: z.ZodISODateTime;
            }, z.core.$strip>;
        }, z.core.$strip>;
        readonly summary: "Create an API token (shown once)";
        readonly status: 201;
    };
    readonly listTokens: {
        readonly method: "GET";
        readonly path: "/api/tokens";
        readonly auth: readonly ["admin"];
        readonly response: z.ZodObject<{
            tokens: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                name: z.ZodString;
                role: z.ZodEnum<{
                    admin: "admin";
                    agent: "agent";
                    worker: "worker";
                }>;
                prefix: z.ZodString;
                createdAt: z.ZodISODateTime;
                lastUsedAt: z.ZodNullable<z.ZodISODateTime>;
                revokedAt: z.ZodNullable<z.ZodISODateTime>;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "List API tokens (name, role, prefix, created, last used, revoked), active first; a token's hash is never shown";
    };
    readonly revokeToken: {
        readonly method: "DELETE";
        readonly path: "/api/tokens/{id}";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                agent: "agent";
                worker: "worker";
            }>;
            prefix: z.ZodString;
            createdAt: z.ZodISODateTime;
            lastUsedAt: z.ZodNullable<z.ZodISODateTime>;
            revokedAt: z.ZodNullable<z.ZodISODateTime>;
        }, z.core.$strip>;
        readonly summary: "Revoke an API token: it authenticates nothing from the next request on; 404 for an unknown id, 409 if it was already revoked";
    };
    readonly listAccounts: {
        readonly method: "GET";
        readonly path: "/api/accounts";
        readonly auth: readonly ["admin"];
        readonly response: z.ZodObject<{
            accounts: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                name: z.ZodString;
                email: z.ZodString;
                role: z.ZodEnum<{
                    admin: "admin";
                    operator: "operator";
                    support: "support";
                    user: "user";
                }>;
                createdAt: z.ZodISODateTime;
                disabledAt: z.ZodNullable<z.ZodISODateTime>;
                activeSessions: z.ZodNumber;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "List people's accounts (name, e-mail, role, created, disabled, active sessions), enabled first";
    };
    readonly createAccount: {
        readonly method: "POST";
        readonly path: "/api/accounts";
        readonly auth: readonly ["admin"];
        readonly body: z.ZodObject<{
            name: z.ZodString;
            email: z.ZodPipe<z.ZodString, z.ZodEmail>;
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
            password: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            email: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
            createdAt: z.ZodISODateTime;
            disabledAt: z.ZodNullable<z.ZodISODateTime>;
            activeSessions: z.ZodNumber;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Create a person's account with an initial password (hashed by Better Auth); 409 if the e-mail address is taken";
    };
    readonly changeAccountRole: {
        readonly method: "PATCH";
        readonly path: "/api/accounts/{id}";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            email: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
            createdAt: z.ZodISODateTime;
            disabledAt: z.ZodNullable<z.ZodISODateTime>;
            activeSessions: z.ZodNumber;
        }, z.core.$strip>;
        readonly summary: "Change a person's role (effective on their next request); 409 when it would leave no enabled admin";
    };
    readonly disableAccount: {
        readonly method: "POST";
        readonly path: "/api/accounts/{id}/disable";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            email: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
            createdAt: z.ZodISODateTime;
            disabledAt: z.ZodNullable<z.ZodISODateTime>;
            activeSessions: z.ZodNumber;
        }, z.core.$strip>;
        readonly summary: "Disable an account: its sessions are deleted at once and sign-in is refused; 409 for your own account, the last enabled admin, or one already disabled";
    };
    readonly enableAccount: {
        readonly method: "POST";
        readonly path: "/api/accounts/{id}/enable";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            email: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                operator: "operator";
                support: "support";
                user: "user";
            }>;
            createdAt: z.ZodISODateTime;
            disabledAt: z.ZodNullable<z.ZodISODateTime>;
            activeSessions: z.ZodNumber;
        }, z.core.$strip>;
        readonly summary: "Enable a disabled account: the person can sign in again; 409 if it is not disabled";
    };
    readonly adminHistory: {
        readonly method: "GET";
        readonly path: "/api/admin/history";
        readonly auth: readonly ["admin"];
        readonly query: z.ZodObject<{
            before: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
            limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
            entityType: z.ZodOptional<z.ZodEnum<{
                account: "account";
                escalationChannel: "escalationChannel";
                token: "token";
            }>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            events: z.ZodArray<z.ZodObject<{
                seq: z.ZodNumber;
                type: z.ZodEnum<{
                    "account.created": "account.created";
                    "account.disabled": "account.disabled";
                    "account.enabled": "account.enabled";
                    "account.role_changed": "account.role_changed";
                    "escalation_channel.created": "escalation_channel.created";
                    "escalation_channel.removed": "escalation_channel.removed";
                    "token.created": "token.created";
                    "token.revoked": "token.revoked";
                }>;
                entityType: z.ZodEnum<{
                    account: "account";
                    escalationChannel: "escalationChannel";
                    token: "token";
                }>;
                entityId: z.ZodString;
                actor: z.ZodString;
                fromState: z.ZodNullable<z.ZodString>;
                toState: z.ZodNullable<z.ZodString>;
                data: z.ZodRecord<z.ZodString, z.ZodUnknown>;
                subject: z.ZodString;
                createdAt: z.ZodISODateTime;
            }, z.core.$strip>>;
            nextBefore: z.ZodNullable<z.ZodNumber>;
        }, z.core.$strip>;
        readonly summary: "The history of administration, newest first: API tokens created and revoked, accounts created, re-roled, disabled and enabled, escalation channels added and removed — who, when, what; page with before (nextBefore) and limit, filter by entityType";
    };
    readonly createSession: {
        readonly method: "POST";
        readonly path: "/api/session";
        readonly auth: "public";
        readonly body: z.ZodObject<{
            token: z.ZodString;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            name: z.ZodString;
            role: z.ZodEnum<{
                admin: "admin";
                agent: "agent";
                worker: "worker";
            }>;
        }, z.core.$strip>;
        readonly summary: "Console sign-in with an admin token (sets an httpOnly cookie)";
    };
    readonly deleteSession: {
        readonly method: "DELETE";
        readonly path: "/api/session";
        readonly auth: "public";
        readonly summary: "Console sign-out";
        readonly status: 204;
    };
    readonly openapi: {
        readonly method: "GET";
        readonly path: "/api/openapi.json";
        readonly auth: "public";
        readonly summary: "This document";
    };
    readonly listEscalationChannels: {
        readonly method: "GET";
        readonly path: "/api/escalation-channels";
        readonly auth: readonly ["admin", "operator", "support"];
        readonly response: z.ZodObject<{
            channels: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                name: z.ZodString;
                kind: z.ZodEnum<{
                    slack: "slack";
                    webhook: "webhook";
                }>;
                urlPreview: z.ZodString;
                hasSecret: z.ZodBoolean;
                active: z.ZodBoolean;
                createdAt: z.ZodISODateTime;
                health: z.ZodObject<{
                    health: z.ZodEnum<{
                        failing: "failing";
                        healthy: "healthy";
                        removed: "removed";
                        untested: "untested";
                    }>;
                    lastSuccessAt: z.ZodNullable<z.ZodISODateTime>;
                    lastFailureAt: z.ZodNullable<z.ZodISODateTime>;
                    consecutiveFailures: z.ZodNumber;
                    attempts: z.ZodNumber;
                }, z.core.$strip>;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "Escalation channels (webhook, Slack-compatible), active first, each with its health from the delivery log (last success, failures in a row); secrets are never shown. Support reads them too";
    };
    readonly createEscalationChannel: {
        readonly method: "POST";
        readonly path: "/api/escalation-channels";
        readonly auth: readonly ["admin", "operator"];
        readonly body: z.ZodObject<{
            name: z.ZodString;
            kind: z.ZodEnum<{
                slack: "slack";
                webhook: "webhook";
            }>;
            url: z.ZodURL;
            secret: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            kind: z.ZodEnum<{
                slack: "slack";
                webhook: "webhook";
            }>;
            urlPreview: z.ZodString;
            hasSecret: z.ZodBoolean;
            active: z.ZodBoolean;
            createdAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly status: 201;
        readonly summary: "Add an escalation channel: a signed JSON webhook (secret required) or a Slack-compatible incoming webhook";
    };
    readonly deactivateEscalationChannel: {
        readonly method: "DELETE";
        readonly path: "/api/escalation-channels/{id}";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            id: z.ZodString;
            name: z.ZodString;
            kind: z.ZodEnum<{
                slack: "slack";
                webhook: "webhook";
            }>;
            urlPreview: z.ZodString;
            hasSecret: z.ZodBoolean;
            active: z.ZodBoolean;
            createdAt: z.ZodISODateTime;
        }, z.core.$strip>;
        readonly summary: "Deactivate an escalation channel (its delivery log is kept; pending deliveries to it are failed)";
    };
    readonly sendEscalationTest: {
        readonly method: "POST";
        readonly path: "/api/escalation-channels/{id}/test";
        readonly auth: readonly ["admin", "operator"];
        readonly params: z.ZodObject<{
            id: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            delivery: z.ZodObject<{
                id: z.ZodString;
                status: z.ZodEnum<{
                    delivered: "delivered";
                    failed: "failed";
                    pending: "pending";
                }>;
                createdAt: z.ZodISODateTime;
            }, z.core.$strip>;
        }, z.core.$strip>;
        readonly status: 202;
        readonly summary: "Send a test message to a channel through the deliverer (signed, retried, logged as a delivery of kind test); its result counts in the channel's health";
    };
    readonly listEscalations: {
        readonly method: "GET";
        readonly path: "/api/escalations";
        readonly auth: readonly ["admin", "operator", "support"];
        readonly query: z.ZodObject<{
            reviewItemId: z.ZodOptional<z.ZodString>;
            taskId: z.ZodOptional<z.ZodString>;
            channelId: z.ZodOptional<z.ZodString>;
            status: z.ZodOptional<z.ZodEnum<{
                delivered: "delivered";
                failed: "failed";
                pending: "pending";
            }>>;
            kind: z.ZodOptional<z.ZodEnum<{
                closed_out: "closed_out";
                escalated: "escalated";
                test: "test";
            }>>;
            limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            deliveries: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                channelId: z.ZodString;
                channel: z.ZodObject<{
                    id: z.ZodString;
                    name: z.ZodString;
                    kind: z.ZodEnum<{
                        slack: "slack";
                        webhook: "webhook";
                    }>;
                    active: z.ZodBoolean;
                }, z.core.$strip>;
                reviewItemId: z.ZodString;
                taskId: z.ZodString;
                kind: z.ZodEnum<{
                    closed_out: "closed_out";
                    escalated: "escalated";
                    test: "test";
                }>;
                status: z.ZodEnum<{
                    delivered: "delivered";
                    failed: "failed";
                    pending: "pending";
                }>;
                attempts: z.ZodNumber;
                nextAttemptAt: z.ZodISODateTime;
                lastAttemptAt: z.ZodNullable<z.ZodISODateTime>;
                lastError: z.ZodNullable<z.ZodString>;
                responseStatus: z.ZodNullable<z.ZodNumber>;
                attemptLog: z.ZodArray<z.ZodObject<{
                    attempt: z.ZodNumber;
                    at: z.ZodISODateTime;
                    status: z.ZodNullable<z.ZodNumber>;
                    error: z.ZodNullable<z.ZodString>;
                    durationMs: z.ZodNumber;
                }, z.core.$strip>>;
                payload: z.ZodUnknown;
                createdAt: z.ZodISODateTime;
                deliveredAt: z.ZodNullable<z.ZodISODateTime>;
                reviewItem: z.ZodNullable<z.ZodObject<{
                    id: z.ZodString;
                    kind: z.ZodEnum<{
                        approve_compensation: "approve_compensation";
                        orphaned_resource: "orphaned_resource";
                        orphaned_side_effect: "orphaned_side_effect";
                        resolve_uncertain: "resolve_uncertain";
                    }>;
                    subject: z.ZodString;
                    status: z.ZodEnum<{
                        approved: "approved";
                        escalated: "escalated";
                        open: "open";
                        rejected: "rejected";
                        resolved: "resolved";
                    }>;
                    deadline: z.ZodISODateTime;
                    decidedBy: z.ZodNullable<z.ZodString>;
                    decidedAt: z.ZodNullable<z.ZodISODateTime>;
                    resolution: z.ZodNullable<z.ZodString>;
                }, z.core.$strip>>;
                task: z.ZodNullable<z.ZodObject<{
                    id: z.ZodString;
                    title: z.ZodString;
                }, z.core.$strip>>;
                late: z.ZodBoolean;
                trigger: z.ZodEnum<{
                    deadline_passed: "deadline_passed";
                    escalated: "escalated";
                    high_risk_orphan: "high_risk_orphan";
                }>;
                reason: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "The escalation delivery log, newest first: every escalation and close-out per channel with its attempts; filter by review item, task, channel, status, kind";
    };
    readonly listDemoServices: {
        readonly method: "GET";
        readonly path: "/api/demo/services";
        readonly auth: readonly ["admin"];
        readonly response: z.ZodObject<{
            demoUrl: z.ZodString;
            services: z.ZodArray<z.ZodObject<{
                name: z.ZodEnum<{
                    crm: "crm";
                    inference: "inference";
                    mailer: "mailer";
                    reports: "reports";
                    shop: "shop";
                }>;
                description: z.ZodString;
                faults: z.ZodObject<{
                    latencyMs: z.ZodOptional<z.ZodNumber>;
                    acceptThenTimeout: z.ZodOptional<z.ZodBoolean>;
                    cancelUnavailable: z.ZodOptional<z.ZodBoolean>;
                    ignoreCancellation: z.ZodOptional<z.ZodBoolean>;
                    failToRelease: z.ZodOptional<z.ZodBoolean>;
                    someoneElseEdits: z.ZodOptional<z.ZodBoolean>;
                }, z.core.$strict>;
                applicableFaults: z.ZodArray<z.ZodEnum<{
                    acceptThenTimeout: "acceptThenTimeout";
                    cancelUnavailable: "cancelUnavailable";
                    failToRelease: "failToRelease";
                    ignoreCancellation: "ignoreCancellation";
                    latencyMs: "latencyMs";
                    someoneElseEdits: "someoneElseEdits";
                }>>;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "List the demo services with their fault controls in force and the ones each acts on; 503 when the demo services are not running";
    };
    readonly getDemoFaults: {
        readonly method: "GET";
        readonly path: "/api/demo/services/{service}/faults";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            service: z.ZodString;
        }, z.core.$strip>;
        readonly response: z.ZodObject<{
            service: z.ZodEnum<{
                crm: "crm";
                inference: "inference";
                mailer: "mailer";
                reports: "reports";
                shop: "shop";
            }>;
            faults: z.ZodObject<{
                latencyMs: z.ZodOptional<z.ZodNumber>;
                acceptThenTimeout: z.ZodOptional<z.ZodBoolean>;
                cancelUnavailable: z.ZodOptional<z.ZodBoolean>;
                ignoreCancellation: z.ZodOptional<z.ZodBoolean>;
                failToRelease: z.ZodOptional<z.ZodBoolean>;
                someoneElseEdits: z.ZodOptional<z.ZodBoolean>;
            }, z.core.$strict>;
        }, z.core.$strip>;
        readonly summary: "Read a demo service's fault controls in force (a call's own X-Demo-Faults header overrides them)";
    };
    readonly setDemoFaults: {
        readonly method: "POST";
        readonly path: "/api/demo/services/{service}/faults";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            service: z.ZodString;
        }, z.core.$strip>;
        readonly body: z.ZodObject<{
            latencyMs: z.ZodOptional<z.ZodNumber>;
            acceptThenTimeout: z.ZodOptional<z.ZodBoolean>;
            cancelUnavailable: z.ZodOptional<z.ZodBoolean>;
            ignoreCancellation: z.ZodOptional<z.ZodBoolean>;
            failToRelease: z.ZodOptional<z.ZodBoolean>;
            someoneElseEdits: z.ZodOptional<z.ZodBoolean>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            service: z.ZodEnum<{
                crm: "crm";
                inference: "inference";
                mailer: "mailer";
                reports: "reports";
                shop: "shop";
            }>;
            faults: z.ZodObject<{
                latencyMs: z.ZodOptional<z.ZodNumber>;
                acceptThenTimeout: z.ZodOptional<z.ZodBoolean>;
                cancelUnavailable: z.ZodOptional<z.ZodBoolean>;
                ignoreCancellation: z.ZodOptional<z.ZodBoolean>;
                failToRelease: z.ZodOptional<z.ZodBoolean>;
                someoneElseEdits: z.ZodOptional<z.ZodBoolean>;
            }, z.core.$strict>;
        }, z.core.$strip>;
        readonly summary: "Set a demo service's fault controls (replaces them; {} clears them) for every later call without its own X-Demo-Faults header";
    };
    readonly demoWitness: {
        readonly method: "GET";
        readonly path: "/api/demo/services/{service}/witness";
        readonly auth: readonly ["admin"];
        readonly params: z.ZodObject<{
            service: z.ZodString;
        }, z.core.$strip>;
        readonly query: z.ZodObject<{
            afterSeq: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
            limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            service: z.ZodEnum<{
                crm: "crm";
                inference: "inference";
                mailer: "mailer";
                reports: "reports";
                shop: "shop";
            }>;
            witness: z.ZodArray<z.ZodObject<{
                seq: z.ZodNumber;
                service: z.ZodEnum<{
                    crm: "crm";
                    inference: "inference";
                    mailer: "mailer";
                    reports: "reports";
                    shop: "shop";
                }>;
                action: z.ZodString;
                subject: z.ZodNullable<z.ZodString>;
                detail: z.ZodUnknown;
                at: z.ZodISODateTime;
            }, z.core.$strip>>;
            omitted: z.ZodNumber;
        }, z.core.$strip>;
        readonly summary: "Read a demo service's witness log (what it really did), oldest first; afterSeq for polling, limit keeps the most recent";
    };
    readonly audit: {
        readonly method: "GET";
        readonly path: "/api/audit";
        readonly auth: readonly ["admin", "agent", "worker", "operator", "support"];
        readonly query: z.ZodObject<{
            ownerId: z.ZodOptional<z.ZodString>;
            user: z.ZodOptional<z.ZodString>;
            conversationId: z.ZodOptional<z.ZodString>;
            taskId: z.ZodOptional<z.ZodString>;
            tool: z.ZodOptional<z.ZodString>;
            from: z.ZodOptional<z.ZodISODateTime>;
            to: z.ZodOptional<z.ZodISODateTime>;
            format: z.ZodOptional<z.ZodEnum<{
                csv: "csv";
                json: "json";
            }>>;
        }, z.core.$strict>;
        readonly response: z.ZodObject<{
            filter: z.ZodRecord<z.ZodString, z.ZodUnknown>;
            generatedAt: z.ZodISODateTime;
            tasks: z.ZodArray<z.ZodObject<{
                id: z.ZodString;
                title: z.ZodString;
                ownerId: z.ZodString;
                ownerEmail: z.ZodNullable<z.ZodString>;
                conversationId: z.ZodNullable<z.ZodString>;
                stage: z.ZodString;
                riskLevel: z.ZodString;
                createdAt: z.ZodISODateTime;
                cancelRequestedAt: z.ZodNullable<z.ZodISODateTime>;
                cancelRequestedBy: z.ZodNullable<z.ZodString>;
                cancelReason: z.ZodNullable<z.ZodString>;
                settledAt: z.ZodNullable<z.ZodISODateTime>;
                endedAt: z.ZodNullable<z.ZodISODateTime>;
                outcomes: z.ZodArray<z.ZodObject<{
                    workItemId: z.ZodString;
                    toolCallId: z.ZodString;
                    toolName: z.ZodString;
                    kind: z.ZodEnum<{
                        abandoned: "abandoned";
                        awaiting_service: "awaiting_service";
                        completed: "completed";
                        completed_before_stop: "completed_before_stop";
                        could_not_stop_finished: "could_not_stop_finished";
                        could_not_stop_running: "could_not_stop_running";
                        discarded: "discarded";
                        failed: "failed";
                        finished_after_stop: "finished_after_stop";
                        never_started: "never_started";
                        outcome_unknown: "outcome_unknown";
                        reversed: "reversed";
                        running: "running";
                        stopped: "stopped";
                        stopped_partial_kept: "stopped_partial_kept";
                        stopping: "stopping";
                        took_effect: "took_effect";
                        waiting: "waiting";
                    }>;
                    short: z.ZodString;
                    label: z.ZodString;
                }, z.core.$strip>>;
            }, z.core.$strip>>;
            effects: z.ZodArray<z.ZodObject<{
                sideEffectId: z.ZodString;
                taskId: z.ZodString;
                taskTitle: z.ZodString;
                ownerId: z.ZodString;
                ownerEmail: z.ZodNullable<z.ZodString>;
                conversationId: z.ZodNullable<z.ZodString>;
                workItemId: z.ZodString;
                toolName: z.ZodString;
                operationId: z.ZodString;
                providerRef: z.ZodNullable<z.ZodString>;
                externalRecordId: z.ZodNullable<z.ZodString>;
                externalVersion: z.ZodNullable<z.ZodString>;
                reversible: z.ZodBoolean;
                description: z.ZodNullable<z.ZodString>;
                outcome: z.ZodString;
                recordedAt: z.ZodISODateTime;
                updatedAt: z.ZodISODateTime;
                decisions: z.ZodArray<z.ZodObject<{
                    reviewItemId: z.ZodString;
                    kind: z.ZodString;
                    event: z.ZodString;
                    actor: z.ZodString;
                    at: z.ZodISODateTime;
                    reason: z.ZodNullable<z.ZodString>;
                }, z.core.$strip>>;
            }, z.core.$strip>>;
            compensations: z.ZodArray<z.ZodObject<{
                sideEffectId: z.ZodString;
                taskId: z.ZodString;
                reviewItemId: z.ZodString;
                externalRecordId: z.ZodNullable<z.ZodString>;
                boundToVersion: z.ZodNullable<z.ZodString>;
                status: z.ZodString;
                approvedBy: z.ZodNullable<z.ZodString>;
                decidedAt: z.ZodNullable<z.ZodISODateTime>;
                resolution: z.ZodNullable<z.ZodString>;
            }, z.core.$strip>>;
            uncertain: z.ZodArray<z.ZodObject<{
                taskId: z.ZodString;
                kind: z.ZodEnum<{
                    review_item: "review_item";
                    side_effect: "side_effect";
                    work_item: "work_item";
                }>;
                id: z.ZodString;
                toolName: z.ZodNullable<z.ZodString>;
                detail: z.ZodString;
                since: z.ZodISODateTime;
            }, z.core.$strip>>;
        }, z.core.$strip>;
        readonly summary: "What the agent actually changed: external effects with evidence, decisions, compensations and open uncertainty; filter by user (account e-mail or id), ownerId, conversationId, taskId, tool, from/to; format=csv|json downloads the same as a file";
    };
};
export type Contract = typeof contract;
