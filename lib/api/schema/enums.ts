import { z } from "zod";
import { Mechanism, RiskLevel, TaskStage, TokenRole, values, WorkItemKind, WorkItemStatus } from "../../ledger/states";

export const TaskStageSchema = z.enum(values(TaskStage));
export const WorkItemStatusSchema = z.enum(values(WorkItemStatus));
export const WorkItemKindSchema = z.enum(values(WorkItemKind));
export const MechanismSchema = z.enum(values(Mechanism));
export const RiskLevelSchema = z.enum(values(RiskLevel));
export const TokenRoleSchema = z.enum(values(TokenRole));
