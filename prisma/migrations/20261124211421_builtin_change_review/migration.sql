-- AlterTable
ALTER TABLE "BuiltinToolChange" ADD COLUMN "reviewNote" TEXT;
ALTER TABLE "BuiltinToolChange" ADD COLUMN "reviewedAt" DATETIME;
ALTER TABLE "BuiltinToolChange" ADD COLUMN "reviewedById" TEXT;
