;;; agent-doc-state.el --- conversation state for agent-doc (eglot) -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, convenience

;;; Commentary:

;; Loaded by agent-doc.el.  What the agent will receive and what each turn did:
;;
;;   C-c a s  `agent-doc-sessions'     pick a session document of the workspace
;;                                     (state, pane, last answer, unsent changes)
;;   C-c a t  `agent-doc-turn-diff'    git diff of the turn whose answer is at point
;;   C-c a r  `agent-doc-revert-turn'  remove the answer at point (undoable)
;;
;; The "will be sent" marks need nothing here: the server publishes them as
;; Hint diagnostics, which eglot shows as Flymake notes
;; ("agent-doc [unsent]: will be sent", "agent-doc [private]: private, not sent").
;; eglot has no code lenses, so the turn commands act on the line at point.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'agent-doc)

(defconst agent-doc-state--icons
  '(("starting" . "◌") ("running" . "●") ("needs_input" . "◐")
    ("stale" . "◔") ("exited" . "■") ("none" . "○"))
  "Icon of each agent state.")

(defun agent-doc-state--present (value)
  "Non-nil when VALUE is a non-empty string."
  (and (stringp value) (not (string-empty-p value))))

(defun agent-doc-format-session (row)
  "One line describing a session ROW (a plist from `agentDoc.sessions').
An open document's state comes from its latest `agentDoc/status'."
  (let* ((live (gethash (plist-get row :uri) agent-doc--status))
         (state (format "%s" (or (plist-get live :state) (plist-get row :state))))
         (pane (if live (plist-get live :pane) (plist-get row :pane)))
         (last (plist-get row :lastAnswer))
         (text (format "%s %s  %s"
                       (or (cdr (assoc state agent-doc-state--icons)) "●")
                       (plist-get row :name)
                       (replace-regexp-in-string "_" " " state))))
    (when (agent-doc-state--present pane)
      (setq text (concat text " in " pane)))
    (when (agent-doc-state--present last)
      (setq text (concat text " · answered " (substring last 11 16))))
    (when (eq (plist-get row :unsent) t)
      (let ((n (plist-get row :unsentChanges)))
        (setq text (if (numberp n) (format "%s · unsent %d" text n)
                     (concat text " · not sent yet")))))
    text))

(defun agent-doc-session-candidates ()
  "Alist of (LINE . PATH) for every session document of the workspace."
  (let ((result (jsonrpc-request (agent-doc--server) :workspace/executeCommand
                                 (list :command "agentDoc.sessions"
                                       :arguments (vector (list :uri nil))))))
    (mapcar (lambda (row)
              (cons (agent-doc-format-session row) (plist-get row :path)))
            (append (plist-get result :sessions) nil))))

(defun agent-doc-sessions ()
  "Choose a session document of the workspace (`completing-read') and open it."
  (interactive)
  (let ((rows (agent-doc-session-candidates)))
    (unless rows (user-error "agent-doc: no session documents in the workspace"))
    (let ((choice (completing-read "agent-doc session: " rows nil t)))
      (find-file (cdr (assoc choice rows))))))

(defun agent-doc-state--turn-args ()
  "The turn command argument for the line at point."
  (list :uri (agent-doc--uri) :line (1- (line-number-at-pos))))

(defun agent-doc-turn-diff ()
  "Show the git diff of the turn that wrote the answer at point."
  (interactive)
  (agent-doc-execute
   "agentDoc.turnDiff" (agent-doc-state--turn-args)
   (lambda (result)
     (let ((buffer (get-buffer-create
                    (format "*agent-doc turn %s*"
                            (substring (plist-get result :sha) 0 12)))))
       (with-current-buffer buffer
         (let ((inhibit-read-only t))
           (erase-buffer)
           (insert (plist-get result :diff))
           (goto-char (point-min)))
         (when (fboundp 'diff-mode) (diff-mode))
         (setq buffer-read-only t))
       (pop-to-buffer buffer)))))

(defun agent-doc-revert-turn ()
  "Remove the answer at point from the buffer and the snapshot (undo restores it)."
  (interactive)
  (agent-doc-execute "agentDoc.revertTurn" (agent-doc-state--turn-args)
                     (lambda (result)
                       (message "agent-doc: removed %s" (plist-get result :heading)))))

(define-key agent-doc-mode-map (kbd "C-c a s") #'agent-doc-sessions)
(define-key agent-doc-mode-map (kbd "C-c a t") #'agent-doc-turn-diff)
(define-key agent-doc-mode-map (kbd "C-c a r") #'agent-doc-revert-turn)

(provide 'agent-doc-state)
;;; agent-doc-state.el ends here
