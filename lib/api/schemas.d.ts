import { z } from "zod";
export declare const TaskStageSchema: z.ZodEnum<{
    active: "active";
    cancel_requested: "cancel_requested";
    cancelled: "cancelled";
    completed: "completed";
    failed: "failed";
}>;
export declare const WorkItemStatusSchema: z.ZodEnum<{
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
export declare const WorkItemKindSchema: z.ZodEnum<{
    external_action: "external_action";
    local_worker: "local_worker";
    model_request: "model_request";
    remote_tool: "remote_tool";
}>;
export declare const MechanismSchema: z.ZodEnum<{
    abort_signal: "abort_signal";
    none: "none";
    provider_cancel: "provider_cancel";
    rollback: "rollback";
}>;
export declare const RiskLevelSchema: z.ZodEnum<{
    high: "high";
    low: "low";
}>;
export declare const TokenRoleSchema: z.ZodEnum<{
    admin: "admin";
    agent: "agent";
    worker: "worker";
}>;
export declare const TaskParams: z.ZodObject<{
    taskId: z.ZodString;
}, z.core.$strip>;
export declare const WorkItemParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
export declare const TaskSchema: z.ZodObject<{
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
export declare const WorkItemSchema: z.ZodObject<{
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
/** What a claim returns: the item plus the lease token, which only the claiming worker ever sees. */
export declare const ClaimedWorkItemSchema: z.ZodObject<{
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
export declare const ResourceSchema: z.ZodObject<{
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
export declare const SideEffectSchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const ReviewItemSchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const TaskDetailSchema: z.ZodObject<{
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
export declare const TaskListSchema: z.ZodObject<{
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
export declare const LedgerEventSchema: z.ZodObject<{
    seq: z.ZodNumber;
    taskId: z.ZodNullable<z.ZodString>;
    workItemId: z.ZodNullable<z.ZodString>;
    entityType: z.ZodString;
    entityId: z.ZodString;
    actor: z.ZodString;
    type: z.ZodString;
    fromState: z.ZodNullable<z.ZodString>;
    toState: z.ZodNullable<z.ZodString>;
    reason: z.ZodNullable<z.ZodString>;
    data: z.ZodNullable<z.ZodUnknown>;
    createdAt: z.ZodISODateTime;
}, z.core.$strip>;
export declare const CancellationBoundarySchema: z.ZodObject<{
    taskId: z.ZodString;
    intentVersion: z.ZodNumber;
    cancelRequestedAt: z.ZodISODateTime;
    reason: z.ZodNullable<z.ZodString>;
    requestedBy: z.ZodNullable<z.ZodString>;
    alreadyRequested: z.ZodBoolean;
}, z.core.$strip>;
export declare const CancelResponseSchema: z.ZodDiscriminatedUnion<[z.ZodObject<{
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
export declare const CancellationSummarySchema: z.ZodObject<{
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
export declare const StopPreviewSchema: z.ZodDiscriminatedUnion<[z.ZodObject<{
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
/** A Stop of one step and its descendants (POST /api/work-items/{id}/cancel): its boundary, at the step's scope. */
export declare const ChildCancelResponseSchema: z.ZodDiscriminatedUnion<[z.ZodObject<{
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
/** A Stop of everything of a conversation or a person: one ordinary boundary per task still active. */
export declare const ManyCancelResponseSchema: z.ZodObject<{
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
export declare const PersonParams: z.ZodObject<{
    ownerId: z.ZodString;
}, z.core.$strip>;
export declare const IncidentSchema: z.ZodObject<{
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
export declare const IncidentParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
export declare const IncidentTargetsSchema: z.ZodObject<{
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
export declare const OpenIncidentBody: z.ZodObject<{
    targetKind: z.ZodEnum<{
        token: "token";
        tool: "tool";
    }>;
    target: z.ZodString;
    reason: z.ZodString;
}, z.core.$strict>;
export declare const LiftIncidentBody: z.ZodObject<{
    reason: z.ZodString;
}, z.core.$strict>;
export declare const EmptyBody: z.ZodObject<{}, z.core.$strict>;
export declare const OpenIncidentResponseSchema: z.ZodObject<{
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
export declare const IncidentListSchema: z.ZodObject<{
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
export declare const IncidentDetailSchema: z.ZodObject<{
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
export declare const HeartbeatResponseSchema: z.ZodObject<{
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
export declare const CheckpointResponseSchema: z.ZodObject<{
    passed: z.ZodLiteral<true>;
    intentVersion: z.ZodNumber;
    proposalVersion: z.ZodNumber;
}, z.core.$strip>;
export declare const SubmissionResponseSchema: z.ZodObject<{
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
export declare const ClaimResponseSchema: z.ZodObject<{
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
export declare const ApiTokenSchema: z.ZodObject<{
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
/** The token itself is in this answer only: it is stored hashed and never shown again. */
export declare const CreatedTokenSchema: z.ZodObject<{
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
export declare const SessionSchema: z.ZodObject<{
    name: z.ZodString;
    role: z.ZodEnum<{
        admin: "admin";
        agent: "agent";
        worker: "worker";
    }>;
}, z.core.$strip>;
export declare const ErrorSchema: z.ZodObject<{
    error: z.ZodObject<{
        code: z.ZodString;
        message: z.ZodString;
        details: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        issues: z.ZodOptional<z.ZodArray<z.ZodObject<{
            field: z.ZodString;
            message: z.ZodString;
        }, z.core.$strip>>>;
    }, z.core.$strip>;
}, z.core.$strip>;
export declare const CreateTaskBody: z.ZodObject<{
    title: z.ZodString;
    conversationId: z.ZodOptional<z.ZodString>;
    riskLevel: z.ZodOptional<z.ZodEnum<{
        high: "high";
        low: "low";
    }>>;
    ownerId: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const ListTasksQuery: z.ZodObject<{
    status: z.ZodPipe<z.ZodOptional<z.ZodString>, z.ZodTransform<string[] | undefined, string | undefined>>;
    conversationId: z.ZodOptional<z.ZodString>;
    limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
    before: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const ScheduleWorkItemBody: z.ZodObject<{
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
export declare const StartWorkItemBody: z.ZodObject<{
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
export declare const CancelBody: z.ZodObject<{
    reason: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const ClaimBody: z.ZodObject<{
    workerId: z.ZodString;
    toolNames: z.ZodOptional<z.ZodArray<z.ZodString>>;
    leaseMs: z.ZodOptional<z.ZodNumber>;
}, z.core.$strict>;
export declare const HeartbeatBody: z.ZodObject<{
    leaseToken: z.ZodString;
    leaseMs: z.ZodOptional<z.ZodNumber>;
}, z.core.$strict>;
export declare const CheckpointBody: z.ZodObject<{
    leaseToken: z.ZodString;
    intentVersion: z.ZodOptional<z.ZodNumber>;
    proposalVersion: z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
}, z.core.$strict>;
export declare const SubmittedBody: z.ZodObject<{
    leaseToken: z.ZodString;
    operationId: z.ZodString;
    providerRef: z.ZodOptional<z.ZodString>;
    externalRecordId: z.ZodOptional<z.ZodString>;
    externalVersion: z.ZodOptional<z.ZodString>;
    reversible: z.ZodOptional<z.ZodBoolean>;
    description: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const CompleteBody: z.ZodObject<{
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
export declare const EventsQuery: z.ZodObject<{
    lastEventId: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
}, z.core.$strict>;
export declare const SessionBody: z.ZodObject<{
    token: z.ZodString;
}, z.core.$strict>;
export declare const CreateTokenBody: z.ZodObject<{
    name: z.ZodString;
    role: z.ZodEnum<{
        admin: "admin";
        agent: "agent";
        worker: "worker";
    }>;
}, z.core.$strict>;
export declare const ReviewItemParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
export declare const ListReviewItemsQuery: z.ZodObject<{
    status: z.ZodOptional<z.ZodEnum<{
        approved: "approved";
        escalated: "escalated";
        open: "open";
        rejected: "rejected";
        resolved: "resolved";
    }>>;
    taskId: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const ReviewItemListSchema: z.ZodObject<{
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
export declare const DecisionBody: z.ZodObject<{
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
export declare const RetryReleaseResponseSchema: z.ZodObject<{
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
export declare const DecisionResponseSchema: z.ZodObject<{
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
export declare const MetricsSchema: z.ZodObject<{
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
export declare const MetricsQuery: z.ZodObject<{
    since: z.ZodOptional<z.ZodISODateTime>;
}, z.core.$strict>;
export declare const ConversationParams: z.ZodObject<{
    conversationId: z.ZodString;
}, z.core.$strip>;
/** A turn's id: chosen by the client before it sends the message, so that a Stop can name the turn before its task exists. */
export declare const TurnId: z.ZodString;
export declare const MessageBody: z.ZodObject<{
    text: z.ZodString;
    turnId: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const TurnParams: z.ZodObject<{
    conversationId: z.ZodString;
    turnId: z.ZodString;
}, z.core.$strip>;
export declare const StopTurnBody: z.ZodObject<{
    reason: z.ZodOptional<z.ZodString>;
    text: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const EditProposalBody: z.ZodObject<{
    items: z.ZodArray<z.ZodObject<{
        sku: z.ZodString;
        quantity: z.ZodNumber;
    }, z.core.$strict>>;
    expectedVersion: z.ZodNumber;
}, z.core.$strict>;
export declare const ConfirmProposalBody: z.ZodObject<{
    proposalVersion: z.ZodNumber;
}, z.core.$strict>;
export declare const TurnSchema: z.ZodObject<{
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
export declare const ProposalSchemaOut: z.ZodRecord<z.ZodString, z.ZodUnknown>;
export declare const ConfirmationSchema: z.ZodObject<{
    taskId: z.ZodString;
    proposalVersion: z.ZodNumber;
    workItems: z.ZodArray<z.ZodString>;
    alreadyConfirmed: z.ZodBoolean;
}, z.core.$strip>;
export declare const CompleteTaskBody: z.ZodObject<{
    note: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const FailTaskBody: z.ZodObject<{
    error: z.ZodString;
}, z.core.$strict>;
export declare const FinishTaskResponseSchema: z.ZodObject<{
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
export declare const ReversalBody: z.ZodObject<{
    reason: z.ZodString;
}, z.core.$strict>;
export declare const ReversalResponseSchema: z.ZodObject<{
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
export declare const EscalationChannelKindSchema: z.ZodEnum<{
    slack: "slack";
    webhook: "webhook";
}>;
export declare const EscalationChannelParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
/** A channel as the API shows it: never the secret, and only a preview of the URL (a Slack URL is a credential). */
export declare const EscalationChannelSchema: z.ZodObject<{
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
/** A channel's health, derived from its delivery log (lib/escalation/channel-health.ts). */
export declare const ChannelHealthSchema: z.ZodObject<{
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
export declare const EscalationTestSchema: z.ZodObject<{
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
export declare const EscalationChannelListSchema: z.ZodObject<{
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
export declare const CreateEscalationChannelBody: z.ZodObject<{
    name: z.ZodString;
    kind: z.ZodEnum<{
        slack: "slack";
        webhook: "webhook";
    }>;
    url: z.ZodURL;
    secret: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export declare const ListEscalationsQuery: z.ZodObject<{
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
export declare const EscalationDeliverySchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const EscalationDeliveryListSchema: z.ZodObject<{
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
export declare const PartialBody: z.ZodObject<{
    leaseToken: z.ZodString;
    result: z.ZodUnknown;
    complete: z.ZodBoolean;
}, z.core.$strict>;
export declare const ProgressBody: z.ZodObject<{
    done: z.ZodNumber;
    total: z.ZodOptional<z.ZodNumber>;
    unit: z.ZodOptional<z.ZodString>;
    message: z.ZodOptional<z.ZodString>;
    leaseToken: z.ZodString;
}, z.core.$strict>;
export declare const ProgressSchema: z.ZodObject<{
    done: z.ZodNumber;
    total: z.ZodOptional<z.ZodNumber>;
    unit: z.ZodOptional<z.ZodString>;
    message: z.ZodOptional<z.ZodString>;
    at: z.ZodString;
}, z.core.$strict>;
export declare const UncertainBody: z.ZodObject<{
    leaseToken: z.ZodString;
    reason: z.ZodString;
}, z.core.$strict>;
export declare const ResourceBody: z.ZodObject<{
    leaseToken: z.ZodString;
    type: z.ZodString;
    handle: z.ZodString;
}, z.core.$strict>;
export declare const OkSchema: z.ZodObject<{
    ok: z.ZodLiteral<true>;
}, z.core.$strip>;
export declare const DEMO_SERVICES: readonly ["shop", "crm", "mailer", "reports", "inference"];
export declare const DemoServiceNameSchema: z.ZodEnum<{
    crm: "crm";
    inference: "inference";
    mailer: "mailer";
    reports: "reports";
    shop: "shop";
}>;
export declare const DemoFaultsSchema: z.ZodObject<{
    latencyMs: z.ZodOptional<z.ZodNumber>;
    acceptThenTimeout: z.ZodOptional<z.ZodBoolean>;
    cancelUnavailable: z.ZodOptional<z.ZodBoolean>;
    ignoreCancellation: z.ZodOptional<z.ZodBoolean>;
    failToRelease: z.ZodOptional<z.ZodBoolean>;
    someoneElseEdits: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strict>;
export declare const DemoFaultNameSchema: z.ZodEnum<{
    acceptThenTimeout: "acceptThenTimeout";
    cancelUnavailable: "cancelUnavailable";
    failToRelease: "failToRelease";
    ignoreCancellation: "ignoreCancellation";
    latencyMs: "latencyMs";
    someoneElseEdits: "someoneElseEdits";
}>;
/** The service is checked by the handler (an unknown one is 404, not 400). */
export declare const DemoServiceParams: z.ZodObject<{
    service: z.ZodString;
}, z.core.$strip>;
export declare const DemoServiceSchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const DemoServiceListSchema: z.ZodObject<{
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
export declare const DemoServiceFaultsSchema: z.ZodObject<{
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
export declare const DemoWitnessQuery: z.ZodObject<{
    afterSeq: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
    limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
}, z.core.$strict>;
export declare const DemoWitnessEntrySchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const DemoWitnessSchema: z.ZodObject<{
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
export declare const AuditQuery: z.ZodObject<{
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
export declare const AuditReportSchema: z.ZodObject<{
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
/** A stored token as the admin page lists it: its prefix, never its hash. */
export declare const ApiTokenListItemSchema: z.ZodObject<{
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
export declare const ApiTokenListSchema: z.ZodObject<{
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
export declare const ApiTokenParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
export declare const PersonRoleSchema: z.ZodEnum<{
    admin: "admin";
    operator: "operator";
    support: "support";
    user: "user";
}>;
export declare const AccountParams: z.ZodObject<{
    id: z.ZodString;
}, z.core.$strip>;
export declare const AccountSchema: z.ZodObject<{
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
export declare const AccountListSchema: z.ZodObject<{
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
export declare const CreateAccountBody: z.ZodObject<{
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
export declare const ChangeAccountRoleBody: z.ZodObject<{
    role: z.ZodEnum<{
        admin: "admin";
        operator: "operator";
        support: "support";
        user: "user";
    }>;
}, z.core.$strict>;
export declare const AdminEntitySchema: z.ZodEnum<{
    account: "account";
    escalationChannel: "escalationChannel";
    token: "token";
}>;
export declare const AdminHistoryQuery: z.ZodObject<{
    before: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
    limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
    entityType: z.ZodOptional<z.ZodEnum<{
        account: "account";
        escalationChannel: "escalationChannel";
        token: "token";
    }>>;
}, z.core.$strict>;
export declare const AdminHistoryEventSchema: z.ZodObject<{
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
}, z.core.$strip>;
export declare const AdminHistorySchema: z.ZodObject<{
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
